"""`vault-mem export`: every memory as JSON or JSONL, and back into a fresh vault unchanged."""

from __future__ import annotations

import json

import pytest
from conftest import cli, git

from vault_mem import Vault

AWS_KEY = "AK" + "IA" + "QWERTYUIOPASDFGH"


@pytest.fixture
def vdir(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    run = lambda *a: cli("--vault", str(root), *a)
    assert run("remember", "editor", "-d", "Uses Helix as the editor", "--type", "preference",
               "--tags", "editor,tools", "--pinned", "--body", "Switched from Neovim.\n").returncode == 0
    assert run("remember", "db-choice", "-d", "Postgres for the ledger", "--type", "decision",
               "--body", "Because we need row-level locks.\n", "--refs", "lib/db.py",
               "--expires", "2031-01-01", "--scope", "billing").returncode == 0
    assert run("remember", "deploy", "-d", "How to deploy", "--type", "procedure",
               "--body", "1. build\n2. ship\n").returncode == 0
    # a person's own field and comment, committed by hand
    path = root / "facts" / "office.md"
    path.write_text("---\ndescription: The office is in Lisbon\ncreated: 2025-01-02\nupdated: 2025-03-04\n"
                    "source: user\nfloor: 3\nrooms: [a1, b2]\n---\nNear the river.\n")
    git(root, "add", "facts/office.md")
    git(root, "commit", "-qm", "add office")
    return root


def memories(root):
    with Vault(root) as v:
        return {e["key"]: v.read_memory(e["path"]).to_dict() for e in v.list()}


def test_export_jsonl_has_every_field_and_round_trips_into_a_fresh_vault(vdir, tmp_path):
    r = cli("--vault", str(vdir), "export", "--jsonl")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["key"] for x in records] == ["editor", "office", "db-choice", "deploy"]  # INDEX.md order
    office = records[1]
    assert office["meta"] == {"description": "The office is in Lisbon", "created": "2025-01-02",
                              "updated": "2025-03-04", "source": "user", "floor": 3, "rooms": ["a1", "b2"]}
    assert office["path"] == "facts/office.md" and office["body"] == "Near the river.\n"
    assert records[2]["meta"]["expires"] == "2031-01-01" and records[0]["meta"]["pinned"] is True
    dump = tmp_path / "dump.jsonl"
    dump.write_text(r.stdout)
    fresh = tmp_path / "fresh"
    assert cli("init", str(fresh)).returncode == 0
    n = int(git(fresh, "rev-list", "--count", "HEAD"))
    r = cli("--vault", str(fresh), "import", str(dump), "--json")
    assert r.returncode == 0, r.stderr
    assert int(git(fresh, "rev-list", "--count", "HEAD")) == n + 1
    assert memories(fresh) == memories(vdir)  # keys, types, fields (dates as dates), bodies
    assert (fresh / "INDEX.md").read_text() == (vdir / "INDEX.md").read_text()


def test_export_json_array_to_a_file_and_by_type(vdir, tmp_path):
    out = tmp_path / "all.json"
    r = cli("--vault", str(vdir), "export", "--json", "-o", str(out))
    assert r.returncode == 0 and r.stdout == "" and "exported 4 memories" in r.stderr
    data = json.loads(out.read_text())
    assert isinstance(data, list) and len(data) == 4
    r = cli("--vault", str(vdir), "export", "--type", "decision")
    assert [json.loads(x)["key"] for x in r.stdout.splitlines()] == ["db-choice"]
    # the file export, imported back, is the same
    fresh = tmp_path / "fresh"
    cli("init", str(fresh))
    assert cli("--vault", str(fresh), "import", str(out)).returncode == 0
    assert memories(fresh) == memories(vdir)


def test_a_file_holding_a_credential_is_not_exported_and_is_named(vdir):
    (vdir / "facts" / "leak.md").write_text(f"---\ndescription: a leak\n---\nkey {AWS_KEY}\n")
    r = cli("--vault", str(vdir), "export")
    assert r.returncode == 0
    assert AWS_KEY not in r.stdout and "leak" not in r.stdout
    assert "not exported: 'facts/leak.md'" in r.stderr


def test_json_and_jsonl_together_is_a_usage_error(vdir):
    r = cli("--vault", str(vdir), "export", "--json", "--jsonl")
    assert r.returncode == 2 and "not both" in r.stderr
