"""The memory-type classifier (model layer, pure): lines as they appear in real CLAUDE.md files,
Claude Code memory files and Codex memories, each with the type a careful reader would give it."""

from __future__ import annotations

import pytest

from vault_mem.model.classify import classify, is_about_the_file

CASES = [
    # build / test / deploy commands and steps -> procedure
    ("Run `make test` to run the unit tests; `make itest` needs Docker.", "procedure"),
    ("Build the binary with `go build ./cmd/ledger`.", "procedure"),
    ("Tag the release: `git tag vX.Y.Z`", "procedure"),
    ("`pnpm dev` starts the web client on port 5173", "procedure"),
    ("To deploy: push to `main`, then run `./scripts/deploy.sh prod`", "procedure"),
    ("1. `pnpm install`\n2. `pnpm test` runs the unit tests\n3. `pnpm build`", "procedure"),
    ("Deploy with `fly deploy --remote-only` after the migrations ran", "procedure"),
    # decisions, with their reason
    ("We chose sqlc over GORM because the queries stay plain SQL.", "decision"),
    ("Decided to keep money as integer cents: floats lost pennies in March.", "decision"),
    ("We use SQS instead of Kafka because the ops team is two people.", "decision"),
    ("Went with Tailwind for the admin UI after the CSS modules experiment", "decision"),
    # how the person wants the work done -> preference
    ("Always use pnpm, not npm", "preference"),
    ("Never commit generated files under `gen/`.", "preference"),
    ("Prefer table-driven tests.", "preference"),
    ("Use 2-space indentation in TypeScript", "preference"),
    ("Always wrap errors with `fmt.Errorf(\"...: %w\", err)`.", "preference"),
    ("Don't add comments that restate the code", "preference"),
    ("Prefers terse answers without a summary at the end", "preference"),
    ("Use snake_case for SQL column names", "preference"),
    ("Keep PR descriptions short, with a testing section", "preference"),
    # what is true of the project -> fact
    ("Ledger is a double-entry bookkeeping API written in Go.", "fact"),
    ("The HTTP layer lives in `internal/api`, the storage layer in `internal/store`.", "fact"),
    ("We use PostgreSQL 16 with sqlc for queries.", "fact"),
    ("The project uses Poetry for dependencies", "fact"),
    ("Architecture: a React SPA in `web/` talking to a Go API in `server/`", "fact"),
    ("The staging database is reset every Sunday night", "fact"),
    ("Lint runs on every push.", "fact"),
    ("Pipeline bugs are tracked in the Linear project INGEST.", "fact"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_realistic_lines_get_the_type_they_say(text, expected):
    assert classify(text) == expected


def test_no_signal_gives_none_so_the_caller_decides():
    assert classify("pnpm") is None
    assert classify("") is None
    assert classify("   \n") is None


def test_markup_does_not_change_the_answer():
    assert classify("- **Always** use pnpm, not npm") == "preference"
    assert classify("* Run `make test` before pushing") == "procedure"
    assert classify("> We chose Postgres because of JSONB") == "decision"


@pytest.mark.parametrize("line", [
    "This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.",
    "Topic files in this folder, one line each:",
    "See the topic files below.",
])
def test_lines_about_the_file_itself(line):
    assert is_about_the_file(line)


@pytest.mark.parametrize("line", ["The staging database is reset every Sunday night", "Always use pnpm, not npm",
                                  "Keep memory files under 200 lines"])
def test_lines_with_content_are_not_about_the_file(line):
    assert not is_about_the_file(line)
