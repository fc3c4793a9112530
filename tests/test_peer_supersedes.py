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

from conftest import PEER_EMAIL, at_terminal, cli, person_and_peer, push_as_peer

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
    mine, peer = person_and_peer(tmp_path)
    assert "editor-choice" in recall_keys(mine, "main editor")
    (peer / "preferences" / "editor-now.md").write_text(
        "---\ndescription: Uses Notepad as the main editor\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
        "supersedes: [editor-choice]\n---\nNotepad.\n")
    push_as_peer(peer, "editor")
    assert cli("sync", str(mine)).returncode == 0

    assert "editor-choice" in recall_keys(mine, "main editor")  # the person's memory is still found
    context = session_context(mine)
    assert "- editor-choice (" in context
    assert "Notepad" not in context

    assert "may now reach an agent" in at_terminal("trust", str(mine), "--author", PEER_EMAIL).stdout
    assert recall_keys(mine, "main editor") == ["editor-now"]  # approved: their supersession counts
    context = session_context(mine)
    assert "Notepad" in context and "- editor-choice (" not in context


def test_a_peers_supersedes_left_staged_by_a_stopped_merge_hides_nothing(tmp_path):
    """Recall asks only the memories that supersede one for their authors: a peer's memory
    that a `git merge --no-commit` left staged (not committed, so no author row of its own) is
    still judged by the incoming side's author, and hides nothing."""
    from conftest import git

    from vault_mem import Vault

    mine, peer = person_and_peer(tmp_path)
    (peer / "preferences" / "editor-now.md").write_text(
        "---\ndescription: Uses Notepad as the main editor\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
        "supersedes: [editor-choice]\n---\nNotepad.\n")
    push_as_peer(peer, "editor")
    git(mine, "fetch", "-q", "origin")
    git(mine, "merge", "-q", "--no-commit", "--no-ff", "origin/main")
    with Vault(mine) as vault:
        keys = [h.key for h in vault.recall("main editor").hits]
        assert "editor-choice" in keys and "editor-now" in keys, keys


def test_recall_asks_no_author_when_no_memory_supersedes_another(tmp_path):
    """Which memories a peer wrote matters to recall only for those that supersede one: with
    none, a recall reads no author row (it read every memory's, O(vault), on each recall)."""
    from vault_mem import Vault

    mine, _ = person_and_peer(tmp_path)
    with Vault(mine) as vault:
        for i in range(5):
            vault.remember(f"fact-{i}", f"A fact about the editor number {i}", "text", source="user")
        vault.recall("main editor")  # the first recall may fill the author rows
        statements: list[str] = []
        vault.sidecar.db.conn.set_trace_callback(statements.append)
        try:
            hits = vault.recall("main editor").hits
        finally:
            vault.sidecar.db.conn.set_trace_callback(None)
    assert hits
    asked = [s for s in statements if "FROM authors" in s]
    # the hits' own authors are asked (at most one statement); never every memory's rows
    assert len(asked) <= 1 and all("json_each" in s for s in asked), asked


def test_a_recall_stamps_the_refs_once_though_it_asks_who_wrote_twice(tmp_path, monkeypatch):
    """Recall asks who wrote the memories that supersede one, then who wrote its hits: both
    from one reading of the refs (history.refs_stamp walks refs/ and logs/ and stats each
    file), not one per question."""
    from vault_mem import Vault
    from vault_mem.store import history

    mine, _ = person_and_peer(tmp_path)
    with Vault(mine) as vault:
        vault.remember("editor-old", "The main editor is Vim", "text", source="user")
        vault.remember("editor", "The main editor is Helix", "text", source="user", supersedes=["editor-old"])
        assert vault.sidecar.superseder_paths()
        vault.recall("main editor")  # the first recall may fill the author rows
        stamps = []
        stamp = history.refs_stamp
        monkeypatch.setattr(history, "refs_stamp", lambda repo: stamps.append(1) or stamp(repo))
        hits = vault.recall("main editor").hits
    keys = [h.key for h in hits]
    assert "editor" in keys and "editor-old" not in keys  # superseded by a trusted memory
    assert len(stamps) == 1
