"""A peer's memory cannot hide the person's by superseding it (DESIGN §7).

A superseded memory is hidden from recall and from INDEX.md. A peer not approved here pushed a
memory saying ``supersedes: [editor-choice]``: after `vault-mem sync` the person's own pinned
memory was gone from recall and from the session context, while the peer's was found by recall
in its place. What an agent is shown now counts only the supersessions of memories it may be
shown unasked; once the person approves the author (`vault-mem trust --author`), theirs count.
Real bare remote, a peer's clone pushing, the real CLI and agent hook.
"""

from __future__ import annotations

import json
import os
import subprocess

from conftest import cli, git

PEER = "mallory@peer.example"


def session_context(root) -> str:
    proc = cli("hook", "session-start", "--vault", str(root),
               input=json.dumps({"hook_event_name": "SessionStart", "cwd": str(root)}))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def recall_keys(root, query: str) -> list[str]:
    proc = cli("--vault", str(root), "recall", query, "--json")
    assert proc.returncode == 0, proc.stderr
    return [h["key"] for h in json.loads(proc.stdout)["hits"]]


def test_a_peers_supersedes_hides_nothing_until_approved(tmp_path):
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    mine = tmp_path / "mine"
    assert cli("init", str(mine)).returncode == 0
    r = cli("--vault", str(mine), "remember", "editor-choice", "--type", "preference", "--pinned",
            "-d", "Uses Helix as the main editor")
    assert r.returncode == 0, r.stderr
    git(mine, "remote", "add", "origin", str(bare))
    git(mine, "push", "-q", "-u", "origin", "main")
    assert "editor-choice" in recall_keys(mine, "main editor")
    peer = tmp_path / "peer"
    git(tmp_path, "clone", "-q", str(bare), str(peer))
    (peer / "preferences" / "editor-now.md").write_text(
        "---\ndescription: Uses Notepad as the main editor\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
        "supersedes: [editor-choice]\n---\nNotepad.\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER}
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", "editor"], ["push", "-q", "origin", "main"]):
        subprocess.run(["git", *args], cwd=peer, check=True, env=env, capture_output=True)
    assert cli("sync", str(mine)).returncode == 0

    assert "editor-choice" in recall_keys(mine, "main editor")  # the person's memory is still found
    context = session_context(mine)
    assert "- editor-choice (" in context
    assert "Notepad" not in context

    assert cli("trust", str(mine), "--author", PEER).returncode == 0
    assert recall_keys(mine, "main editor") == ["editor-now"]  # approved: their supersession counts
    context = session_context(mine)
    assert "Notepad" in context and "- editor-choice (" not in context
