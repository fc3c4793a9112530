"""`vault-mem import`: each source kind in its tool's documented layout, built here in the test.

Every test drives the real CLI in process against a real vault (git, SQLite) and checks the
files, the frontmatter and the commits that result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import cli, git, new_vault

from vault_mem import Vault
from vault_mem.ops.importers import detect

AWS_KEY = "AK" + "IA" + "QWERTYUIOPASDFGH"


@pytest.fixture
def vdir(tmp_path):
    """A fresh vault's folder: what `vault-mem init` makes there (:func:`conftest.new_vault`: a copy
    of one made once per worker; the tests of `init` itself run it)."""
    new_vault(tmp_path / "v").close()
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
    # Claude Code's type prefixes are dropped from the keys (feedback_testing.md -> testing)
    assert paths == ["facts/freeze.md", "facts/linear.md", "preferences/always-use-pnpm-not-npm.md",
                     "preferences/role.md", "preferences/testing.md"]
    assert commits(vdir) == before + 1
    assert git(vdir, "log", "-1", "--format=%s").strip() == "import: 5 memories from claude-code memory"
    fb = memory(vdir, "preferences/testing.md")
    assert fb.description == "Integration tests must hit a real database"
    assert fb.source == "imported" and fb.meta["origin"] == str(mem / "feedback_testing.md")
    assert "**Why:** a mocked test hid a broken migration." in fb.body
    assert fb.tags == ["claude-code", "feedback"] and fb.meta["name"] == "No DB mocks"
    # no description in the file: the hook of its MEMORY.md line, else the name
    assert memory(vdir, "facts/linear.md").description == "Bug tracker"
    # INDEX.md lists them and the work tree is clean
    assert "testing" in (vdir / "INDEX.md").read_text()
    assert git(vdir, "status", "--porcelain") == ""


def real_claude_code_folder(root: Path) -> Path:
    """A memory folder as a months-old Claude Code project has it: a titled MEMORY.md with
    sections, a lead-in, loose lines (one with content, one a link to a deleted topic file), and
    topic files of all four types, two of whose names differ only by their prefix."""
    mem = root / "memory"
    write(mem / "MEMORY.md", "# Memory Index\n\nTopic files in this folder, one line each:\n\n"
          "## User\n- [User role](user_role.md) — data scientist, new to React\n"
          "- [No DB mocks](feedback_testing.md) — integration tests hit a real database\n\n"
          "## Project\n- [Merge freeze](project_freeze.md) — freeze from 2026-03-05\n"
          "- [Queue choice](project_queue_choice.md) — why SQS\n"
          "- [Slow suite](project_testing.md) — CI takes 12 minutes\n"
          "- [Old note](feedback_gone.md) — a topic file since deleted\n\n"
          "## Reference\n- [Bug tracker](reference_linear.md)\n\n"
          "## Loose notes\n- Always use pnpm, not npm\n- The staging database is reset every Sunday night\n"
          "\n---\n- TODO\n")  # a rule line and a one-word line carry nothing
    write(mem / "user_role.md", "---\nname: User role\ndescription: The user is a data scientist, new "
          "to React\ntype: user\n---\nDeep Go expertise; explain frontend with backend analogies.\n")
    write(mem / "feedback_testing.md", "---\nname: No DB mocks\ndescription: Integration tests must "
          "hit a real database\ntype: feedback\n---\nNo mocks.\n")
    write(mem / "project_freeze.md", "---\nname: Merge freeze\ndescription: Non-critical merges freeze "
          "from 2026-03-05\ntype: project\n---\nThe mobile team cuts a release branch.\n")
    write(mem / "project_queue_choice.md", "---\nname: Queue choice\ndescription: Jobs go through SQS, "
          "not Kafka\ntype: project\n---\nWe chose SQS over Kafka because the ops team is two people.\n")
    write(mem / "project_testing.md", "---\nname: Slow suite\ndescription: The CI test suite takes 12 "
          "minutes\ntype: project\n---\nMost of it is the e2e job.\n")
    write(mem / "reference_linear.md", "---\nname: Bug tracker\ntype: reference\n---\nPipeline bugs "
          "are tracked in the Linear project INGEST.\n")
    return mem


def test_claude_code_index_headings_lead_ins_and_links_are_not_memories_keys_lose_prefixes(vdir, tmp_path):
    mem = real_claude_code_folder(tmp_path / "proj")
    r, out = run_import(vdir, mem)
    assert r.returncode == 0, r.stderr
    got = {i["path"]: Path(i["origin"]).name for i in out["imported"]}
    assert got == {
        # loose MEMORY.md lines that carry content, typed by what they say
        "preferences/always-use-pnpm-not-npm.md": "MEMORY.md:19",
        "facts/the-staging-database-is-reset-every-sunday-night.md": "MEMORY.md:20",
        # topic files: prefixes dropped, user/feedback -> preference, project -> fact or decision
        "preferences/testing.md": "feedback_testing.md",
        "facts/freeze.md": "project_freeze.md",
        "decisions/queue-choice.md": "project_queue_choice.md",
        "facts/testing-2.md": "project_testing.md",  # unique: testing is taken by feedback_testing
        "facts/linear.md": "reference_linear.md",
        "preferences/role.md": "user_role.md",
    }
    # the link to a topic file that is gone is named, not imported
    assert [(Path(s["origin"]).name, "feedback_gone.md" in s["reason"]) for s in out["skipped"]] == \
        [("MEMORY.md:13", True)]
    index = (vdir / "INDEX.md").read_text()
    assert "memory-index" not in index and "topic-files" not in index and "Memory Index" not in index
    assert memory(vdir, "decisions/queue-choice.md").meta["name"] == "Queue choice"
    # again: nothing changes
    n = commits(vdir)
    r, out = run_import(vdir, mem)
    assert not out["imported"] and commits(vdir) == n


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
                            "facts/code-style.md"}  # the section's prose states a fact
    proc = memory(vdir, "procedures/build-and-test-commands.md")
    assert proc.description == "Build and test commands"
    assert "1. `pnpm install`" in proc.body and "pnpm run e2e" in proc.body  # whole, code included
    pref = memory(vdir, "preferences/prefer-named-exports-over-default-exports.md")
    assert "tree-shaking" in pref.body and pref.meta["origin"] == f"{src}:5"
    assert pref.tags == ["claude-md", "code-style"]
    assert "indented prose after a bullet" in memory(vdir, "facts/code-style.md").body
    # the @import line is not followed, and says so
    assert [s["origin"] for s in out["skipped"]] == [f"{src}:20"]
    assert "not followed" in out["skipped"][0]["reason"]


REAL_CLAUDE_MD = """# CLAUDE.md

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.

## Project overview
Ledger is a double-entry bookkeeping API written in Go.
- The HTTP layer lives in `internal/api`, the storage layer in `internal/store`.
- We use PostgreSQL 16 with sqlc for queries.

## Development
- Run `make test` to run the unit tests; `make itest` needs Docker.
- Build the binary with `go build ./cmd/ledger`.
- Never commit generated files under `gen/`.
- Prefer table-driven tests.

## Notes
- We chose sqlc over GORM because the queries stay plain SQL.
- Decided to keep money as integer cents: floats lost pennies in March.
- Always wrap errors with `fmt.Errorf`.

## Decisions
- Postgres over MySQL for JSONB

## Deploying
1. Tag the release: `git tag vX.Y.Z`
2. `make deploy ENV=prod`
"""


def test_claude_md_prose_is_typed_by_what_it_says(vdir, tmp_path):
    src = write(tmp_path / "ledger" / "CLAUDE.md", REAL_CLAUDE_MD)
    r, out = run_import(vdir, src)
    assert r.returncode == 0, r.stderr
    got = {i["path"]: int(i["origin"].rsplit(":", 1)[1]) for i in out["imported"]}
    assert got == {
        "facts/project-overview.md": 6,
        "facts/the-http-layer-lives-in-internal-api-the.md": 7,
        "facts/we-use-postgresql-16-with-sqlc-for-queries.md": 8,
        "procedures/run-make-test-to-run-the-unit-tests-make-itest.md": 11,
        "procedures/build-the-binary-with-go-build-.-cmd-ledger.md": 12,
        "preferences/never-commit-generated-files-under-gen.md": 13,
        "preferences/prefer-table-driven-tests.md": 14,
        "decisions/we-chose-sqlc-over-gorm-because-the-queries.md": 17,
        "decisions/decided-to-keep-money-as-integer-cents-floats.md": 18,
        "preferences/always-wrap-errors-with-fmt.errorf.md": 19,
        "decisions/postgres-over-mysql-for-jsonb.md": 22,  # no signal in the text: the heading's type
        "procedures/deploying.md": 24,
    }
    # /init's boilerplate line is about the file, not a memory
    assert not any(":3" == i["origin"][-2:] for i in out["imported"])
    n = commits(vdir)
    r, out = run_import(vdir, src)
    assert r.returncode == 0 and not out["imported"] and commits(vdir) == n


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
    # an entity note is a fact (INDEX.md lists it), not a note
    assert sorted(i["path"] for i in out["imported"]) == ["decisions/coffee-bean-origins.md",
                                                          "facts/coffee-coffee-brewing-methods.md"]
    m = memory(vdir, "facts/coffee-coffee-brewing-methods.md")
    assert m.description == "Coffee Brewing Methods"
    assert m.tags == ["coffee", "brewing", "temperature"]
    assert m.meta["related"] == ["coffee-bean-origins", "grinding"]
    assert m.meta["permalink"] == "coffee/coffee-brewing-methods"
    assert "- [method] Pour over" in m.body  # the note is kept whole


def bm_note(title: str, type_: str, permalink: str, body: str) -> str:
    return f"---\ntitle: {title}\ntype: {type_}\npermalink: {permalink}\n---\n# {title}\n\n{body}"


def test_basic_memory_types_from_type_folder_and_observations(vdir, tmp_path):
    """A Basic Memory project as its tools write it: every note ``type: note`` unless the person
    or the AI set another (person, project, meeting, decision...)."""
    root = tmp_path / "basic-memory" / "main"
    notes = {
        "people/alice-chen.md": bm_note("Alice Chen", "person", "people/alice-chen", "## Observations\n"
                                        "- [role] Staff engineer on payments\n- [preference] Likes async reviews\n"),
        "projects/ledger.md": bm_note("Ledger", "project", "projects/ledger", "## Observations\n"
                                      "- [stack] Go and Postgres\n- [status] In production since 2025\n"),
        "decisions/use-postgres.md": bm_note("Use Postgres", "decision", "decisions/use-postgres",
                                             "- [decision] Postgres over MySQL because of JSONB\n"),
        "decisions/queue.md": bm_note("Queue", "note", "decisions/queue", "SQS, decided in the March review.\n"),
        "notes/editor.md": bm_note("Editor setup", "note", "notes/editor-setup", "## Observations\n"
                                   "- [preference] Uses Helix with the default keymap\n"
                                   "- [preference] Tabs shown as 4 spaces\n- [tip] :w saves\n"),
        "notes/stack-facts.md": bm_note("Stack facts", "note", "notes/stack-facts",
                                        "- [fact] The API runs on Fly.io\n- [fact] Logs go to Axiom\n"),
        "meetings/2026-03-02-planning.md": bm_note("Planning 2026-03-02", "meeting", "meetings/planning",
                                                   "- [decision] Ship the export in April\n"),
        "journal/2026-03-03.md": bm_note("2026-03-03", "note", "journal/2026-03-03", "Paired with Bo on the flaky test.\n"),
        "coffee.md": bm_note("Coffee Brewing", "note", "coffee-brewing", "- [method] Pour over\n"),
    }
    for rel, text in notes.items():
        write(root / rel, text)
    r, out = run_import(vdir, root)
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "basic-memory"
    got = {i["path"]: str(Path(i["origin"]).relative_to(root)) for i in out["imported"]}
    assert got == {
        "facts/people-alice-chen.md": "people/alice-chen.md",  # an entity: a fact
        "facts/projects-ledger.md": "projects/ledger.md",
        "decisions/decisions-use-postgres.md": "decisions/use-postgres.md",  # type: decision
        "decisions/decisions-queue.md": "decisions/queue.md",  # the folder says decision
        "preferences/notes-editor-setup.md": "notes/editor.md",  # most observations are [preference]
        "facts/notes-stack-facts.md": "notes/stack-facts.md",  # [fact] observations
        "notes/meetings-planning.md": "meetings/2026-03-02-planning.md",  # episodic: stays a note
        "notes/journal-2026-03-03.md": "journal/2026-03-03.md",
        "facts/coffee-brewing.md": "coffee.md",
    }
    index = (vdir / "INDEX.md").read_text()
    assert "Alice Chen" in index and "Editor setup" in index and "Planning" not in index
    n = commits(vdir)
    r, out = run_import(vdir, root)
    assert r.returncode == 0 and not out["imported"] and commits(vdir) == n


# -- Codex memories -----------------------------------------------------------------------------

ROLLOUT = "2026-03-02T10-11-12-ab12-fix-flaky-ledger-test"


def codex_memories(home: Path) -> Path:
    """~/.codex/memories/ as Codex's memory pipeline leaves it (codex-rs/memories/write: the
    consolidation prompt's MEMORY.md and memory_summary.md formats, storage.rs's rollout summary
    and raw_memories.md headers, the ad-hoc notes extension, skills/<name>/SKILL.md)."""
    root = home / ".codex" / "memories"
    write(root / "memory_summary.md", "v1\n## User Profile\nBackend engineer on the payments platform, "
          "mostly Go and Terraform.\n\n## User preferences\n- Keep PR descriptions short, with a testing "
          "section\n\n## General Tips\n- `make itest` needs Docker running; start it with `colima start`\n"
          "- The payments repo pins Go 1.22 in `go.mod`\n\n## What's in Memory\n### ~/src/payments\n"
          f"#### 2026-03-02\n- rollout_summaries/{ROLLOUT}.md \n fixing the flaky ledger test; "
          "thread_id=019c6e27-e55b-73d1-87d8-4e01f1f75043\n")
    write(root / "MEMORY.md", "# Task Group: ~/src/payments ledger tests\nscope: flaky and failing tests "
          "in the ledger package\napplies_to: cwd=~/src/payments; reuse_rule=safe for this checkout\n\n"
          "## Task 1: fix the flaky ledger balance test, success\n### rollout_summary_files\n"
          f"- rollout_summaries/{ROLLOUT}.md (cwd=~/src/payments, updated_at=2026-03-02T10:40:00Z)\n"
          "### keywords\n- TestLedgerBalance, t.Parallel, flaky\n\n## User preferences\n"
          "- when a test flaked, the user asked: \"find the root cause, no retries\" -> never add retry "
          "wrappers to tests [Task 1]\n\n## Reusable knowledge\n- The ledger tests share one Postgres "
          "schema, so `t.Parallel()` in them races [Task 1]\n- Run one test many times with `go test "
          "./internal/ledger -run TestLedgerBalance -count=20` [Task 1]\n\n## Failures and how to do "
          "differently\n- Adding `time.Sleep` hid the race instead of fixing it -> isolate the schema per "
          "test [Task 1]\n")
    write(root / "raw_memories.md", "# Raw Memories\n\nMerged stage-1 raw memories (latest first):\n\n"
          "## Thread `019c6e27`\nupdated_at: 2026-03-02T10:40:00+00:00\ncwd: /home/me/src/payments\n\n"
          "description: fixed the flaky test\n")
    write(root / "rollout_summaries" / f"{ROLLOUT}.md", "thread_id: 019c6e27-e55b-73d1-87d8-4e01f1f75043\n"
          "updated_at: 2026-03-02T10:40:00+00:00\nrollout_path: /home/me/.codex/sessions/2026/03/02/"
          "rollout-019c6e27.jsonl\ncwd: /home/me/src/payments\ngit_branch: fix/flaky-ledger\n\n"
          "# Fixed the flaky ledger balance test by isolating the schema per test\n"
          "Rollout context: the user wanted CI green without retries.\n## Task 1: flaky test\nOutcome: success\n")
    write(root / "skills" / "flaky-test-triage" / "SKILL.md", "---\nname: flaky-test-triage\ndescription: "
          "Find why a Go test flakes before touching it\n---\n1. Rerun with `-count=50`\n2. Run with `-race`\n")
    write(root / "skills" / "flaky-test-triage" / "scripts" / "rerun.sh", "go test -count=50 \"$@\"\n")
    write(root / "extensions" / "ad_hoc" / "instructions.md", "# Ad-hoc notes\nHow to read the notes.\n")
    notes = root / "extensions" / "ad_hoc" / "notes"
    write(notes / "2026-03-04T09-15-00-use-uv.md", "Always use `uv` instead of pip in every Python repo.\n")
    write(notes / "2026-03-05T11-00-00-forget-tabs.md", "Forget that I prefer tabs.\n")
    return root


def test_codex_memories_folder_is_detected_and_mapped(vdir, tmp_path):
    root = codex_memories(tmp_path / "home")
    assert detect(root) == ("codex", root)
    assert detect(root.parent) == ("codex", root)  # ~/.codex is enough
    r, out = run_import(vdir, root)
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "codex"
    got = {i["path"]: str(Path(i["origin"].rsplit(":", 1)[0]).relative_to(root)) for i in out["imported"]}
    assert got == {
        "preferences/user-profile.md": "memory_summary.md",
        "preferences/keep-pr-descriptions-short-with-a-testing.md": "memory_summary.md",
        "procedures/make-itest-needs-docker-running-start-it-with.md": "memory_summary.md",
        "facts/the-payments-repo-pins-go-1.22-in-go.mod.md": "memory_summary.md",
        "preferences/when-a-test-flaked-the-user-asked-find-the-root.md": "MEMORY.md",
        "facts/the-ledger-tests-share-one-postgres-schema-so.md": "MEMORY.md",
        "procedures/run-one-test-many-times-with-go-test-.-internal.md": "MEMORY.md",
        "facts/adding-time.sleep-hid-the-race-instead-of.md": "MEMORY.md",
        "notes/2026-03-02-fix-flaky-ledger-test.md": f"rollout_summaries/{ROLLOUT}.md",
        "procedures/flaky-test-triage.md": "skills/flaky-test-triage/SKILL.md",
        "preferences/use-uv.md": "extensions/ad_hoc/notes/2026-03-04T09-15-00-use-uv.md",
    }
    skipped = {str(Path(s["origin"]).relative_to(root)): s["reason"] for s in out["skipped"]}
    assert set(skipped) == {"raw_memories.md", "extensions/ad_hoc/instructions.md",
                            "extensions/ad_hoc/notes/2026-03-05T11-00-00-forget-tabs.md"}
    assert "vault-mem forget" in skipped["extensions/ad_hoc/notes/2026-03-05T11-00-00-forget-tabs.md"]
    pref = memory(vdir, "preferences/when-a-test-flaked-the-user-asked-find-the-root.md")
    assert "[Task 1]" not in pref.description + pref.body
    assert pref.tags == ["codex", "src-payments-ledger-tests"]
    rollout = memory(vdir, "notes/2026-03-02-fix-flaky-ledger-test.md")
    assert rollout.description == "Fixed the flaky ledger balance test by isolating the schema per test"
    assert rollout.meta["thread_id"] == "019c6e27-e55b-73d1-87d8-4e01f1f75043"
    assert rollout.meta["cwd"] == "/home/me/src/payments" and str(rollout.created) == "2026-03-02"
    assert "Rollout context:" in rollout.body
    skill = memory(vdir, "procedures/flaky-test-triage.md")
    assert skill.description == "Find why a Go test flakes before touching it" and "-race" in skill.body
    assert str(memory(vdir, "preferences/use-uv.md").created) == "2026-03-04"
    # a second import changes nothing; --from codex reads the same
    n = commits(vdir)
    r, out = run_import(vdir, root, "--from", "codex")
    assert r.returncode == 0 and not out["imported"] and commits(vdir) == n


def test_codex_memory_with_a_credential_is_refused_the_rest_imported(vdir, tmp_path):
    root = codex_memories(tmp_path / "home")
    write(root / "extensions" / "ad_hoc" / "notes" / "2026-03-06T08-00-00-aws.md", f"AWS key is {AWS_KEY}\n")
    r, out = run_import(vdir, root)
    assert r.returncode == 1
    assert [Path(i["origin"]).name for i in out["refused"]] == ["2026-03-06T08-00-00-aws.md"]
    assert len(out["imported"]) == 11 and AWS_KEY not in git(vdir, "log", "-p")


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


def test_a_project_folder_with_a_vault_inside_is_read_as_that_vault(vdir, tmp_path):
    """`vault-mem import ~/src/app` on a project without CLAUDE.md read its memory/ vault as loose
    Markdown: the generated INDEX.md and the vault's README became notes, and a procedure became
    a note keyed memory-procedures-KEY. The vault's own files keep their type and key."""
    proj = tmp_path / "app"
    assert cli("init", str(proj / "memory")).returncode == 0
    assert cli("--vault", str(proj / "memory"), "remember", "build-cmd", "--type", "procedure",
               "-d", "Build the app with make app").returncode == 0
    write(proj / "docs" / "guide.md", "# How the app is laid out\n\nsrc/ holds the code.\n")
    r, out = run_import(vdir, proj)
    assert r.returncode == 0, r.stderr
    assert out["kind"] == "markdown"
    assert sorted(i["path"] for i in out["imported"]) == ["notes/docs-guide.md", "procedures/build-cmd.md"]
    assert memory(vdir, "procedures/build-cmd.md").description == "Build the app with make app"


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
    codex = codex_memories(tmp_path / "home")
    assert detect(codex / "MEMORY.md") == ("codex", codex)  # Codex has a MEMORY.md too
    assert detect(codex / "memory_summary.md") == ("codex", codex)
    v2 = tmp_path / "home2" / ".codex" / "memories_v2"  # newer Codex: same layout, another root
    write(v2 / "rollout_summaries" / "t.md", "thread_id: t\n\n# A recap\n")
    assert detect(v2.parent) == ("codex", v2) and detect(v2) == ("codex", v2)


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
    assert "testing" not in (vdir / "INDEX.md").read_text()


def test_a_key_held_by_a_quarantined_file_is_not_read_and_the_import_takes_the_next(vdir, tmp_path):
    (vdir / "notes").mkdir(exist_ok=True)
    (vdir / "notes" / "a.md").write_text(f"---\ndescription: Fact A\n---\n{AWS_KEY}\n")  # a hand edit
    write(tmp_path / "src" / "a.md", "# Fact A\n")
    r, out = run_import(vdir, tmp_path / "src")
    assert r.returncode == 0, r.stderr
    assert [i["key"] for i in out["imported"]] == ["a-2"]
    assert AWS_KEY not in r.stdout + r.stderr
