import json
from conftest import cli, git

FIELDS = ["created","updated","expires","tags","supersedes","refs","pinned","source","type","conflict_of","conflict_author","conflict_date"]
VALUES = ["[1, 2]", "{a: 1}", "true", "12", "-1", "1.5e400", ".nan", "''", "null", "[[a]]", "2026-01-01T00:00:00+23:59", "'2999-01-01'", "[2026-01-01]", "0001-01-01", "9999-12-31", "{}", "[]", "!!binary aGVsbG8=", "[null]", "[{a: b}]", "1970-01-01 00:00:00", "editor-choice", "[editor-choice, editor-choice]"]

def test_fuzz(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    assert cli("--vault", str(root), "remember", "editor-choice", "--type", "preference", "--pinned", "-d", "Uses Helix").returncode == 0
    n = 0
    for f in FIELDS:
        for v in VALUES:
            n += 1
            (root / "facts" / f"k{n}.md").write_text(f"---\ndescription: fuzz {f} {n}\n{f}: {v}\n---\nbody fuzz\n")
    git(root, "add", "-A"); git(root, "commit", "-qm", "fuzz", "--no-verify")
    from vault_mem import Vault
    from vault_mem.adapters.contexts import session_context, prompt_context
    from vault_mem.adapters.tools import call_tool
    for args in (["list"], ["recall", "fuzz"], ["index"], ["doctor"], ["review"], ["dupes"], ["check-refs"], ["log"], ["--json", "list"], ["get", "k5"], ["recall", "editor"]):
        r = cli("--vault", str(root), *args)
        assert "internal error" not in r.stderr and "Traceback" not in r.stderr, (args, r.stderr[-2000:])
    v = Vault(root)
    try:
        session_context(v, {}); prompt_context(v, {"prompt": "fuzz editor helix"})
        for i in range(1, n + 1):
            r = call_tool(v, "get", {"key": f"k{i}"})
            assert "internal" not in r.text.lower(), r.text
        call_tool(v, "list", {}); call_tool(v, "recall", {"query": "fuzz"})
    finally:
        v.close()
