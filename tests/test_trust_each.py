"""``vault-mem trust`` approves what the person approves, file by file (issue 23, eleventh run).

One ``y`` approved every pending file at once, so a peer could bury one file among many. Now
``trust`` shows each pending change (which file, whose commit, what it changes) and asks about
each on the terminal; ``trust PATH...`` approves only the files named (asked once); ``--all`` is
explicit and lists every file it approved. Nothing is approved without the person's terminal.

A real bare remote, a peer pushing with git, the person's real CLI under a real pseudo-terminal.
"""

from __future__ import annotations

import json

from conftest import PEER_EMAIL, at_terminal, cli, person_and_peer, push_as_peer


def _four_pending(tmp_path):
    """The person's vault with four changes waiting: the peer's vault.toml (synced, its settings
    pending) and three files a sync refused (.claude/settings.json, .gitattributes, docs/notes.txt)."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "vault.toml").write_text((peer / "vault.toml").read_text().replace("k = 5", "k = 9"))
    push_as_peer(peer, "more hits")
    assert cli("sync", "--vault", str(mine)).returncode == 0
    (peer / ".claude").mkdir()
    (peer / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    (peer / ".gitattributes").write_text("*.md text\n")
    (peer / "docs").mkdir()
    (peer / "docs" / "notes.txt").write_text("notes for the team\n")
    push_as_peer(peer, "team files")
    assert cli("sync", "--vault", str(mine)).returncode == 1
    return mine, peer


def _waiting(mine) -> list[str]:
    shown = json.loads(cli("trust", "--vault", str(mine), "--json").stdout)
    return [item["name"] for item in shown["items"]]


def test_trust_asks_about_each_pending_change_and_approves_only_those_answered_y(tmp_path):
    mine, _ = _four_pending(tmp_path)
    assert _waiting(mine) == ["vault.toml", ".claude/settings.json", ".gitattributes", "docs/notes.txt"]
    asked = at_terminal("trust", "--vault", str(mine), answer=["n", "n", "y", "y"])
    assert asked.returncode == 0, asked.stdout
    # one question per file, each after that file's own text: which file, whose commit, what it changes
    assert asked.stdout.count("/N]") == 4, asked.stdout
    for n, name in enumerate(["vault.toml", ".claude/settings.json", ".gitattributes", "docs/notes.txt"], 1):
        assert f"approve {name} for this vault on this machine? Type " in asked.stdout
        block = asked.stdout.split(f"[{n}/4] ")[1].split("/N]")[0]
        assert block.startswith((name, f"'{name}'")) and f"by 'Mallory' <{PEER_EMAIL}>" in block, block
    assert "[recall] k: 5 -> 9" in asked.stdout
    said = asked.stdout.split("approved for ")[1]
    assert ".gitattributes" in said and "docs/notes.txt" in said
    assert "not approved, still pending: vault.toml, .claude/settings.json" in said
    assert _waiting(mine) == ["vault.toml", ".claude/settings.json"]
    refused = cli("sync", "--vault", str(mine))
    assert refused.returncode == 1 and ".claude/settings.json" in refused.stderr
    assert ".gitattributes" not in refused.stderr and "docs/notes.txt" not in refused.stderr, refused.stderr


def test_trust_path_approves_only_the_files_named_and_all_approves_every_one_listed(tmp_path):
    mine, _ = _four_pending(tmp_path)
    # a name that waits for nothing approves nothing, and says what waits
    wrong = cli("trust", "--vault", str(mine), "docs/other.txt")
    assert wrong.returncode != 0 and "docs/other.txt is not waiting" in wrong.stderr, wrong.stderr
    assert ".claude/settings.json" in wrong.stderr and "vault.toml" in wrong.stderr
    # named, and confirmed once on the terminal
    named = at_terminal("trust", "--vault", str(mine), "docs/notes.txt", ".gitattributes")
    assert named.returncode == 0, named.stdout
    assert named.stdout.count("/N]") == 1 and "approve these 2 files" in named.stdout, named.stdout
    assert ".claude/settings.json" not in named.stdout.split("approved for ")[0], named.stdout
    assert _waiting(mine) == ["vault.toml", ".claude/settings.json"]
    # from inside the vault, a path from here names it too
    inside = at_terminal("trust", ".claude/settings.json", cwd=mine)
    assert inside.returncode == 0 and _waiting(mine) == ["vault.toml"], inside.stdout
    # --all: asked once, and every file approved is listed
    assert cli("trust", "--vault", str(mine), "--all", "vault.toml").returncode != 0  # one or the other
    every = at_terminal("trust", "--vault", str(mine), "--all")
    assert every.returncode == 0 and every.stdout.count("/N]") == 1, every.stdout
    assert "  vault.toml (changes settings: [recall] k: 5 -> 9)" in every.stdout, every.stdout
    assert _waiting(mine) == []
    assert cli("sync", "--vault", str(mine)).returncode == 0
    assert (mine / ".claude" / "settings.json").is_file()


def test_without_the_persons_terminal_trust_lists_each_change_and_approves_none(tmp_path):
    mine, _ = _four_pending(tmp_path)
    for args in ([], ["--all"], [".gitattributes"]):
        r = cli("trust", "--vault", str(mine), *args)  # an agent's shell: no terminal
        assert r.returncode == 0 and "not approved" in r.stdout, r.stdout
        # each change's commit named by the author's email, not the name (text its writer chose)
        assert r.stdout.count(f"by <{PEER_EMAIL}>") == (1 if args == [".gitattributes"] else 4), r.stdout
        assert "Mallory" not in r.stdout, r.stdout
    no = at_terminal("trust", "--vault", str(mine), answer="n")
    assert no.stdout.count("/N]") == 4 and "not approved" in no.stdout, no.stdout
    assert len(_waiting(mine)) == 4
