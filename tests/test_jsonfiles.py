"""One reader of the JSON another program wrote (vault_mem/store/jsonfiles.py): an agent's
configuration, an agent hook's event and the transcript it names. JSON that cannot be read (not
valid, nested past the parser's depth, a number past Python's digit limit, too large, not UTF-8,
no regular file) is an error naming the file and what to do, wherever it is read; the rule lived
in six readers before, each with its own gaps (the Stop hook opened its transcript blocking)."""

from __future__ import annotations

import ast
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cli, run_cli

from vault_mem.errors import UnreadableJSONError
from vault_mem.store.jsonfiles import parse_json, read_json, read_text


@pytest.mark.parametrize("content, words", [
    ('{"hooks": {,}', "not valid JSON"),
    ("[" * 50_000 + "]" * 50_000, "nested deeper"),
    ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),
    (b'{"a": "\xff"}', "not UTF-8"),
])
def test_json_that_cannot_be_read_is_one_error_naming_the_file(tmp_path, content, words):
    path = tmp_path / "settings.json"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    with pytest.raises(UnreadableJSONError) as caught:
        read_json(path, then="run connect again")
    assert str(path) in str(caught.value) and words in str(caught.value), caught.value
    assert str(caught.value).endswith("run connect again")


def test_what_is_no_regular_file_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opened blocking, this would wait for a writer forever
    (tmp_path / "zero.json").symlink_to("/dev/zero")  # read whole, this would fill the memory
    (tmp_path / "folder.json").mkdir()
    for name in ("fifo.json", "zero.json", "folder.json"):
        with pytest.raises(UnreadableJSONError, match="not a regular file"):
            read_json(tmp_path / name, then="x")


def test_bounds_absent_and_empty(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"a": "x" * 2000}))
    with pytest.raises(UnreadableJSONError, match="over"):
        read_json(path, then="x", max_bytes=1000)
    assert read_text(path, then="x", max_bytes=1000, tail=True) is not None  # a transcript's end
    assert read_json(tmp_path / "none.json", then="x") is None
    (tmp_path / "empty.json").write_text("  \n")
    assert read_json(tmp_path / "empty.json", then="x") == {}
    with pytest.raises(UnreadableJSONError, match="the hook's event is not valid JSON"):
        parse_json("{", what="the hook's event")


def test_the_stop_hook_never_waits_on_a_transcript_that_is_no_regular_file(project, tmp_path):
    """Before: the Stop hook opened the transcript its event names with a plain blocking open: a
    FIFO there (the event's `transcript_path` is a path in the agent's state, which any local
    process can replace) held the session's end until the agent's hook timeout. Read by the one
    reader, it is unreadable: the hook answers at once, asking nothing."""
    proj, _ = project
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    event = json.dumps({"session_id": "s1", "transcript_path": str(fifo), "cwd": str(proj),
                        "hook_event_name": "Stop", "stop_hook_active": False})
    try:
        r = run_cli("hook", "stop", cwd=proj, input=event)
    except subprocess.TimeoutExpired:
        pytest.fail("the Stop hook waited on a FIFO")
    assert r.returncode == 0 and r.stdout == "", r.stderr


def test_an_agent_hooks_event_is_read_bounded(project, tmp_path):
    """Before: an agent hook read its whole stdin before parsing it: an event that never ends (a
    writer gone wrong, here /dev/zero) filled the memory. At most the bound is read; an event over
    it is unreadable JSON, an empty event: the hook answers, asking nothing."""
    proj, _ = project

    def capped():  # the hook's process may map 1.5 GB: on the code before, MemoryError, not the machine's swap
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, resource.getrlimit(resource.RLIMIT_AS)[1]))

    with open("/dev/zero", "rb") as zero:
        r = subprocess.run([sys.executable, "-m", "vault_mem", "hook", "user-prompt-submit"], cwd=proj, stdin=zero,
                           capture_output=True, text=True, timeout=120, preexec_fn=capped, check=False,
                           env={**os.environ, "VAULT_MEM_EMBEDDER": "none"})
    assert r.returncode == 0 and r.stdout == "", r.stderr[-300:]


def test_an_agent_configuration_over_the_bound_is_refused_by_name(project):
    proj, home = project
    big = home / ".claude.json"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no disk used
    r = cli("--vault", str(proj / "memory"), "connect", "claude-code", env={"HOME": str(home)})
    assert r.returncode == 1 and ".claude.json" in r.stderr and "over 64 MB" in r.stderr, r.stderr


#: the modules that read another program's JSON: only through vault_mem/store/jsonfiles.py
READERS = ("adapters/connect.py", "adapters/connect_outdated.py", "adapters/hooks.py", "adapters/distill.py",
           "adapters/agent.py", "adapters/hook_event.py", "adapters/tools.py")


def test_no_reader_of_agent_json_parses_it_by_itself():
    bad = []
    for rel in READERS:
        path = ROOT / "vault_mem" / rel
        if not path.exists():
            continue
        tree = ast.parse(path.read_text(), str(path))
        toml = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "parse_toml"
                for n in ast.walk(f)}  # Codex's TOML: tomllib's own depth, not JSON's
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("loads", "load") \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "json":
                bad.append(f"{rel}:{node.lineno}")
            if isinstance(node, ast.Name) and node.id == "RecursionError" and id(node) not in toml:
                bad.append(f"{rel}:{node.lineno} (RecursionError: the reader's to handle)")
    assert not bad, bad
    assert Path(ROOT / "vault_mem" / "store" / "jsonfiles.py").is_file()


def test_an_import_of_json_nested_past_the_parsers_depth_names_the_file(project):
    """The importers read JSON another program wrote too (a mem0 export, JSON Lines in a clone):
    a file (or one line) nested past the parser's depth ended `vault-mem import` in an internal
    RecursionError; it is a file that is not JSON it can read, named, the other lines imported."""
    proj, _ = project
    deep = "[" * 50_000 + "]" * 50_000
    (proj / "whole.json").write_text(deep)
    (proj / "lines.jsonl").write_text('{"memory": "Uses Helix as the main editor"}\n' + deep + "\n")
    for name in ("whole.json", "lines.jsonl"):
        r = cli("import", name, "--dry-run", cwd=proj)
        assert "internal error" not in r.stderr and "RecursionError" not in r.stderr, r.stderr[-300:]
        assert name in r.stdout + r.stderr, (r.stdout, r.stderr)
    out = json.loads(cli("import", "lines.jsonl", "--dry-run", "--json", cwd=proj).stdout)
    assert [i["key"] for i in out["imported"]] == ["uses-helix-as-the-main-editor"], out
    assert out["refused"][0]["origin"].endswith("lines.jsonl:2") and "nested" in out["refused"][0]["reason"], out
