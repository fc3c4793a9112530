"""`vault-mem import`: each source kind in its tool's documented layout, built here in the test.

Every test drives the real CLI in process against a real vault (git, SQLite) and checks the
files, the frontmatter and the commits that result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import cli, git

from vault_mem import Vault
from vault_mem.ops.importers import detect

AWS_KEY = "AK" + "IA" + "QWERTYUIOPASDFGH"


@pytest.fixture
def vdir(tmp_path):
    r = cli("init", str(tmp_path / "v"))
    assert r.returncode == 0, r.stderr
    return tmp_path / "v"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_import(vdir: Path, *args: str):
    r = cli("--vault", str(vdir), "import", *map(str, args), "--json")
    return r, json.loads(r.stdout)


def commits(vdir: Path) -> int:
    return int(git(vdir, "rev-list", "--count", "HEAD"))


def memory(vdir: Path, rel: str):
    with Vault(vdir) as v:
        return v.read_memory(rel)


# -- Claude Code auto-memory --------------------------------------------------------------------


def claude_code_folder(root: Path) -> Path:
    """~/.claude/projects/<project>/memory/ as Claude Code writes it: MEMORY.md + topic files."""
    mem = root / "projects" / "-home-me-src-app" / "memory"
    write(mem / "MEMORY.md", "- [User role](user_role.md) — data scientist, new to React\n"
          "- [No DB mocks](feedback_testing.md) — integration tests hit a real database\n"
          "- [Merge freeze](project_freeze.md) — freeze from 2026-03-05\n"
          "- [Bug tracker](reference_linear.md)\n"
          "- Always use pnpm, not npm\n")
    write(mem / "user_role.md", "---\nname: User role\ndescription: The user is a data scientist, new "
          "to React\ntype: user\n---\nDeep Go expertise; explain frontend with backend analogies.\n")
    write(mem / "feedback_testing.md", "---\nname: No DB mocks\ndescription: Integration tests must "
          "hit a real database\ntype: feedback\n---\nNo mocks.\n**Why:** a mocked test hid a broken "
          "migration.\n**How to apply:** every database test.\n")
    write(mem / "project_freeze.md", "---\nname: Merge freeze\ndescription: Non-critical merges freeze "
          "from 2026-03-05\ntype: project\n---\nThe mobile team cuts a release branch.\n")
    write(mem / "reference_linear.md", "---\nname: Bug tracker\ntype: reference\n---\nPipeline bugs "
          "are tracked in the Linear project INGEST.\n")
    return mem


def test_claude_code_memory_folder_types_keys_provenance_one_commit(vdir, tmp_path):
    mem = claude_code_folder(tmp_path / "dot-claude")
    before = commits(vdir)
    # the project folder is enough: its memory/ subfolder is found
    r, out = run_import(vdir, mem.parent)
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "claude-code" and not out["refused"]
    paths = sorted(i["path"] for i in out["imported"])
    assert paths == ["facts/project_freeze.md", "facts/reference_linear.md",
                     "preferences/always-use-pnpm-not-npm.md", "preferences/feedback_testing.md",
                     "preferences/user_role.md"]
    assert commits(vdir) == before + 1
    assert git(vdir, "log", "-1", "--format=%s").strip() == "import: 5 memories from claude-code memory"
    fb = memory(vdir, "preferences/feedback_testing.md")
    assert fb.description == "Integration tests must hit a real database"
    assert fb.source == "imported" and fb.meta["origin"] == str(mem / "feedback_testing.md")
    assert "**Why:** a mocked test hid a broken migration." in fb.body
    assert fb.tags == ["claude-code", "feedback"] and fb.meta["name"] == "No DB mocks"
    # no description in the file: the hook of its MEMORY.md line, else the name
    assert memory(vdir, "facts/reference_linear.md").description == "Bug tracker"
    # INDEX.md lists them and the work tree is clean
    assert "feedback_testing" in (vdir / "INDEX.md").read_text()
    assert git(vdir, "status", "--porcelain") == ""


def test_the_same_import_twice_changes_nothing(vdir, tmp_path):
    mem = claude_code_folder(tmp_path / "c")
    run_import(vdir, mem)
    n = commits(vdir)
    r, out = run_import(vdir, mem)
    assert r.returncode == 0 and not out["imported"] and len(out["skipped"]) == 5
    assert all("same content" in s["reason"] for s in out["skipped"])
    assert commits(vdir) == n and out["commit"] is None


# -- CLAUDE.md -----------------------------------------------------------------------------------


CLAUDE_MD = """# Project app

## Code style
- Use 2-space indentation in TypeScript
- Prefer named exports over default exports
  because tree-shaking works better with them
Lint runs on every push.
    indented prose after a bullet stays with the prose

## Build and test commands
1. `pnpm install`
2. `pnpm test` runs the unit tests
```sh
pnpm run e2e
```

## Architecture
The API lives in `server/`, the web client in `web/`.

@docs/extra-instructions.md
"""


def test_claude_md_sections_and_bullets_become_memories(vdir, tmp_path):
    src = write(tmp_path / "proj" / "CLAUDE.md", CLAUDE_MD)
    r, out = run_import(vdir, src.parent)  # the project folder: its CLAUDE.md, not its other .md
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "claude-md"
    by_path = {i["path"]: i for i in out["imported"]}
    assert set(by_path) == {"preferences/use-2-space-indentation-in-typescript.md",
                            "preferences/prefer-named-exports-over-default-exports.md",
                            "procedures/build-and-test-commands.md", "facts/architecture.md",
                            "preferences/code-style.md"}
    proc = memory(vdir, "procedures/build-and-test-commands.md")
    assert proc.description == "Build and test commands"
    assert "1. `pnpm install`" in proc.body and "pnpm run e2e" in proc.body  # whole, code included
    pref = memory(vdir, "preferences/prefer-named-exports-over-default-exports.md")
    assert "tree-shaking" in pref.body and pref.meta["origin"] == f"{src}:5"
    assert pref.tags == ["claude-md", "code-style"]
    assert "indented prose after a bullet" in memory(vdir, "preferences/code-style.md").body
    # the @import line is not followed, and says so
    assert [s["origin"] for s in out["skipped"]] == [f"{src}:20"]
    assert "not followed" in out["skipped"][0]["reason"]


# -- Basic Memory --------------------------------------------------------------------------------


def test_basic_memory_notes_with_observations_and_relations(vdir, tmp_path):
    root = tmp_path / "basic-memory"
    write(root / "coffee" / "brewing.md", "---\ntitle: Coffee Brewing Methods\ntype: note\ntags: [coffee, "
          "brewing]\npermalink: coffee/coffee-brewing-methods\n---\n# Coffee Brewing Methods\n\n"
          "## Observations\n- [method] Pour over gives more clarity than French press\n"
          "- [technique] Water at 205F extracts best #temperature\n\n## Relations\n"
          "- relates_to [[Coffee Bean Origins]]\n- requires [[Grinding]]\n")
    write(root / "coffee" / "origins.md", "---\ntitle: Coffee Bean Origins\ntype: decision\npermalink: "
          "coffee-bean-origins\n---\n# Coffee Bean Origins\n- [decision] Buy Ethiopian beans because "
          "they suit light roasts\n")
    assert detect(root)[0] == "basic-memory"
    r, out = run_import(vdir, root)
    assert r.returncode == 0, r.stderr
    assert sorted(i["path"] for i in out["imported"]) == ["decisions/coffee-bean-origins.md",
                                                          "notes/coffee-coffee-brewing-methods.md"]
    m = memory(vdir, "notes/coffee-coffee-brewing-methods.md")
    assert m.description == "Coffee Brewing Methods"
    assert m.tags == ["coffee", "brewing", "temperature"]
    assert m.meta["related"] == ["coffee-bean-origins", "grinding"]
    assert m.meta["permalink"] == "coffee/coffee-brewing-methods"
    assert "- [method] Pour over" in m.body  # the note is kept whole


# -- a plain Markdown folder ---------------------------------------------------------------------


def test_markdown_folder_one_file_one_memory(vdir, tmp_path):
    root = tmp_path / "notes"
    write(root / "editor.md", "# Uses Helix as the editor\n\nSwitched from Neovim for the LSP.\n")
    write(root / "work" / "deploy.md", "Deploys go out on Tuesdays only\n")
    write(root / "facts" / "db.md", "---\ndescription: The ledger runs on Postgres 16\ntags: db\n---\nBody.\n")
    write(root / "image.png", "not markdown")
    r, out = run_import(vdir, root)
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "markdown"
    assert sorted(i["path"] for i in out["imported"]) == ["facts/db.md", "notes/editor.md",
                                                          "notes/work-deploy.md"]
    assert memory(vdir, "notes/editor.md").description == "Uses Helix as the editor"
    assert memory(vdir, "notes/work-deploy.md").description == "Deploys go out on Tuesdays only"
    db = memory(vdir, "facts/db.md")
    assert db.tags == ["db"] and db.body == "Body.\n" and db.source == "imported"


# -- JSON / JSONL --------------------------------------------------------------------------------


def test_mem0_jsonl_records_and_a_malformed_line(vdir, tmp_path):
    src = write(tmp_path / "mem0.jsonl", "\n".join([
        json.dumps({"id": "a1", "memory": "Prefers dark mode in every editor", "user_id": "alice",
                    "created_at": "2025-06-01T10:00:00-07:00", "updated_at": "2025-07-02T00:00:00Z",
                    "metadata": {"type": "preference", "app": "ide"}, "categories": ["ui"]}),
        "{not json",
        json.dumps({"id": "a2", "memory": "Is allergic to peanuts", "user_id": "alice"}),
        json.dumps({"id": "a3", "metadata": {}}),
    ]) + "\n")
    r, out = run_import(vdir, src)
    assert r.returncode == 1  # something was refused: said by the exit code, the rest imported
    assert out["kind"] == "jsonl"
    assert sorted(i["path"] for i in out["imported"]) == ["facts/is-allergic-to-peanuts.md",
                                                          "preferences/prefers-dark-mode-in-every-editor.md"]
    m = memory(vdir, "preferences/prefers-dark-mode-in-every-editor.md")
    assert m.description == "Prefers dark mode in every editor" and m.body == ""
    assert str(m.created) == "2025-06-01" and str(m.updated) == "2025-07-02"
    assert m.meta["user_id"] == "alice" and m.meta["app"] == "ide" and m.tags == ["ui"]
    assert m.meta["origin"] == f"{src}#a1"
    refused = {i["origin"]: i["reason"] for i in out["refused"]}
    assert "not JSON" in refused[f"{src}:2"] and "no text" in refused[f"{src}:4"]


@pytest.mark.parametrize("wrap", [lambda recs: recs, lambda recs: {"results": recs}])
def test_json_array_and_mem0_results_object(vdir, tmp_path, wrap):
    recs = [{"id": "x", "memory": "Lives in Lisbon"}, {"id": "y", "memory": "Works at Acme on billing"}]
    src = write(tmp_path / "export.json", json.dumps(wrap(recs)))
    r, out = run_import(vdir, src)
    assert r.returncode == 0, r.stderr
    assert sorted(i["key"] for i in out["imported"]) == ["lives-in-lisbon", "works-at-acme-on-billing"]
    assert memory(vdir, "facts/lives-in-lisbon.md").meta["origin"] == f"{src}#x"


# -- what is refused or skipped, and the one commit ---------------------------------------------


def test_a_credential_in_one_item_is_refused_and_listed_the_rest_imported_in_one_commit(vdir, tmp_path):
    root = tmp_path / "notes"
    write(root / "a.md", "# Fact A\nfine\n")
    write(root / "b.md", f"# AWS access\nkey = {AWS_KEY}\n")
    write(root / "c.md", "# Fact C\nfine too\n")
    before = commits(vdir)
    r, out = run_import(vdir, root)
    assert r.returncode == 1
    assert [i["key"] for i in out["imported"]] == ["a", "c"]
    assert [i["origin"] for i in out["refused"]] == [str(root / "b.md")]
    reason = out["refused"][0]["reason"]
    assert "AWS" in reason and AWS_KEY not in reason and AWS_KEY not in r.stdout + r.stderr
    assert commits(vdir) == before + 1
    # notes are not listed in INDEX.md, so the commit holds just the two files
    assert sorted(git(vdir, "show", "--name-only", "--format=", "HEAD").split()) == ["notes/a.md", "notes/c.md"]
    assert AWS_KEY not in git(vdir, "log", "-p", "--all")
    # the text report names the refusal too
    text = cli("--vault", str(vdir), "import", str(root), "--dry-run")
    assert f"! {root / 'b.md'}: refused:" in text.stdout


def test_malformed_huge_and_non_utf8_items_are_refused_with_reasons(vdir, tmp_path):
    root = tmp_path / "notes"
    write(root / "good.md", "# A good note\n")
    write(root / "broken.md", "---\ndescription: [unclosed\n---\nbody\n")
    write(root / "huge.md", "# Huge\n" + "x" * (200 * 1024))
    (root / "latin1.md").write_bytes("# Caf\xe9 notes\n".encode("latin-1"))
    r, out = run_import(vdir, root)
    assert r.returncode == 1
    assert [i["key"] for i in out["imported"]] == ["good"]
    refused = {Path(i["origin"]).name: i["reason"] for i in out["refused"]}
    assert set(refused) == {"broken.md", "huge.md", "latin1.md"}
    assert "over the import limit" in refused["huge.md"]
    assert "not UTF-8" in refused["latin1.md"] and "offset 5" in refused["latin1.md"]
    assert "fix it and import again" in refused["broken.md"]


def test_a_huge_record_is_refused_by_the_write_policy(vdir, tmp_path):
    src = write(tmp_path / "m.jsonl", json.dumps({"memory": "small one"}) + "\n" +
                json.dumps({"memory": "big one\n" + "y" * (100 * 1024)}) + "\n")
    _, out = run_import(vdir, src)
    assert [i["key"] for i in out["imported"]] == ["small-one"]
    assert "over the vault's limit" in out["refused"][0]["reason"]


def test_symlinks_inside_the_source_are_not_followed(vdir, tmp_path):
    outside = write(tmp_path / "secret-place" / "private.md", "# Private diary entry\n")
    root = tmp_path / "notes"
    write(root / "real.md", "# A real note\n")
    os.symlink(outside, root / "link.md")
    os.symlink(outside.parent, root / "linked-folder")
    os.symlink(root / "real.md", root / "alias.md")  # inside the source: skipped too (its target is imported)
    r, out = run_import(vdir, root)
    assert r.returncode == 0, r.stderr
    assert [i["key"] for i in out["imported"]] == ["real"]
    skipped = {Path(i["origin"]).name: i["reason"] for i in out["skipped"]}
    assert set(skipped) == {"link.md", "linked-folder", "alias.md"}
    assert "outside the source" in skipped["link.md"] and "inside the source" in skipped["alias.md"]
    assert "diary" not in git(vdir, "log", "-p")


def test_duplicates_in_the_source_and_different_content_under_a_taken_key(vdir, tmp_path):
    cli("--vault", str(vdir), "remember", "editor", "-d", "Uses Vim", "--type", "note", "--body", "old")
    root = tmp_path / "notes"
    write(root / "editor.md", "# Uses Helix as the editor\n")
    write(root / "twice.jsonl", "")
    src = write(tmp_path / "dupes.jsonl", "\n".join(json.dumps(r) for r in [
        {"key": "editor", "memory": "Uses Helix as the editor"},
        {"key": "editor", "memory": "Uses Helix as the editor"},
        {"key": "editor", "memory": "Uses Emacs on weekends"},
    ]) + "\n")
    r, out = run_import(vdir, src)
    assert r.returncode == 0, r.stderr
    # the vault's own 'editor' is never overwritten: different content takes the next free key
    assert [i["key"] for i in out["imported"]] == ["editor-2", "editor-3"]
    assert out["skipped"][0]["reason"] == f"the same memory as {src}:1 in this import"
    assert memory(vdir, "notes/editor.md").description == "Uses Vim"
    assert memory(vdir, "facts/editor-3.md").description == "Uses Emacs on weekends"
    # again: every one is found in the vault, under whichever key it got
    r, out = run_import(vdir, src)
    assert not out["imported"] and len(out["skipped"]) == 3


def test_dry_run_writes_nothing_and_reports_exactly_the_real_run(vdir, tmp_path):
    mem = claude_code_folder(tmp_path / "c")
    write(mem / "bad.md", f"---\ndescription: token\ntype: user\n---\n{AWS_KEY}\n")
    head, status = git(vdir, "rev-parse", "HEAD"), git(vdir, "status", "--porcelain", "--ignored")
    files = sorted(p.relative_to(vdir).as_posix() for p in vdir.rglob("*") if ".git/" not in p.as_posix()
                   and ".vault-mem" not in p.as_posix())
    r, dry = run_import(vdir, mem, "--dry-run")
    assert r.returncode == 1  # the refusal is reported by the dry run's exit code as well
    assert dry["dry_run"] and dry["commit"] is None and len(dry["imported"]) == 5 and len(dry["refused"]) == 1
    assert git(vdir, "rev-parse", "HEAD") == head
    assert git(vdir, "status", "--porcelain", "--ignored") == status
    assert sorted(p.relative_to(vdir).as_posix() for p in vdir.rglob("*") if ".git/" not in p.as_posix()
                  and ".vault-mem" not in p.as_posix()) == files
    _, real = run_import(vdir, mem)
    for name in ("imported", "skipped", "refused"):
        assert real[name] == dry[name]


# -- detection -----------------------------------------------------------------------------------


def test_detection_rules(tmp_path):
    mem = claude_code_folder(tmp_path / "cc")
    assert detect(mem) == ("claude-code", mem)
    assert detect(mem.parent) == ("claude-code", mem)
    assert detect(mem / "MEMORY.md") == ("claude-code", mem)
    proj = tmp_path / "proj"
    write(proj / "CLAUDE.md", "- a\n")
    write(proj / "README.md", "# readme\n")
    assert detect(proj) == ("claude-md", proj)
    assert detect(proj / "CLAUDE.md")[0] == "claude-md"
    assert detect(write(tmp_path / "x.jsonl", "{}"))[0] == "jsonl"
    assert detect(write(tmp_path / "x.json", "[]"))[0] == "jsonl"
    assert detect(write(tmp_path / "plain" / "a.md", "# a\n").parent)[0] == "markdown"
    assert detect(write(tmp_path / "bm" / "n.md", "---\ntitle: N\npermalink: n\n---\n").parent)[0] == "basic-memory"


def test_unknown_source_and_forced_kind_errors(vdir, tmp_path):
    r = cli("--vault", str(vdir), "import", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such file or folder" in r.stderr and "Traceback" not in r.stderr
    r = cli("--vault", str(vdir), "import", str(tmp_path), "--from", "jsonl")
    assert r.returncode == 2 and "takes a .json or .jsonl file" in r.stderr
    r = cli("--vault", str(vdir), "import", str(tmp_path), "--from", "mem0")
    assert r.returncode == 2


def test_git_revert_of_the_import_commit_takes_it_all_back(vdir, tmp_path):
    mem = claude_code_folder(tmp_path / "c")
    run_import(vdir, mem)
    git(vdir, "revert", "--no-edit", "HEAD")
    r = cli("--vault", str(vdir), "list", "--json")
    assert json.loads(r.stdout) == []
    assert "feedback_testing" not in (vdir / "INDEX.md").read_text()


def test_a_key_held_by_a_quarantined_file_is_not_read_and_the_import_takes_the_next(vdir, tmp_path):
    (vdir / "notes").mkdir(exist_ok=True)
    (vdir / "notes" / "a.md").write_text(f"---\ndescription: Fact A\n---\n{AWS_KEY}\n")  # a hand edit
    write(tmp_path / "src" / "a.md", "# Fact A\n")
    r, out = run_import(vdir, tmp_path / "src")
    assert r.returncode == 0, r.stderr
    assert [i["key"] for i in out["imported"]] == ["a-2"]
    assert AWS_KEY not in r.stdout + r.stderr
