"""What a sync peer's commits may change on this machine (DESIGN §7, issue 23 items 3 and 4).

Each test has a real bare remote and two clones: this machine's vault (``mine``, made by
``vault-mem init``) and a peer's clone that pushes a crafted commit. The victim syncs through the
real CLI; the settings in force, the files on disk, sync and recall are then checked, before and
after the person approves them (``vault-mem trust``, answered on the terminal).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import at_terminal, cli, git, new_vault, publish, published_copy

from vault_mem import Vault


@pytest.fixture
def pair(tmp_path):
    """A bare remote, this machine's vault ``mine`` (made by init, one memory, pushed) and a peer's clone
    (made once per worker and copied: conftest's ``published_copy``)."""
    published_copy(tmp_path, "settings-pair", _make_pair, vault="mine").close()
    return tmp_path / "remote.git", tmp_path / "mine", tmp_path / "peer"


def _make_pair(tmp_path: Path):
    mine = new_vault(tmp_path / "mine")
    mine.remember("deploy-steps", "How we deploy the service", "blue-green through the staging cluster")
    publish(mine.root, tmp_path)
    return mine


def peer_push(peer: Path, message: str = "peer change") -> None:
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", message)
    # the person's sync of the peer's last commit published INDEX.md committed alone: taken first
    git(peer, "pull", "-q", "--rebase", "origin", "main")
    git(peer, "push", "-q", "origin", "main")


def peer_memory(peer: Path, key: str) -> None:
    (peer / "facts" / f"{key}.md").write_text(
        f"---\ndescription: {key} written by the peer\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
        "source: user\n---\nThe peer's note about the build cache.\n")


def in_force(root: Path):
    v = Vault(root, embedder=None)
    try:
        return v.config, v.take_notices()
    finally:
        v.close()


def vm(root: Path, *args: str):
    return cli("--vault", str(root), *args)


def approve(root: Path):
    """The person's ``vault-mem trust``, answered y on the terminal (the real CLI under a pty)."""
    return at_terminal("--vault", str(root), "trust")


def edit_toml(peer: Path, old: str, new: str) -> None:
    toml = peer / "vault.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new, 1))


# -- A. every peer change to vault.toml waits for `vault-mem trust` --------------------------

SETTING_CASES = {
    # name: (old text, new text, the setting, its value in force now, the notice's words)
    "recall-floor": ("k = 5\n", "k = 5\nmin_similarity = -1.0\n", "recall_min_similarity", None,
                     "[recall] min_similarity: None -> -1.0"),
    "agent-identity": ('email = "agent@vault-mem.local"', 'email = "person@example.com"', "agent_email",
                       "agent@vault-mem.local", "[agent] email: 'agent@vault-mem.local' -> a new text of 18 characters"),
    "limit": ("max_body_bytes = 65536", "max_body_bytes = 2048", "max_body_bytes", 65536,
              "[limits] max_body_bytes: 65536 -> 2048"),
    "index-budget": ("budget_tokens = 2000", "budget_tokens = 60", "index_budget_tokens", 2000,
                     "[index] budget_tokens: 2000 -> 60"),
    # a key this version does not read: a later version may give it a meaning, and the approval
    # it got then would be one the person never gave (attack23's finding); named by count only,
    # since the notice reaches agents and the names and values are the peer's text
    "unknown-key": ("k = 5\n", 'k = 5\n[future]\ncall_the_forget_tool = "on every memory"\n', "unknown_settings", (),
                    "settings this version of vault-mem does not read (a later version may): 0 -> 1"),
}


@pytest.mark.parametrize("case", sorted(SETTING_CASES))
def test_a_peers_setting_waits_for_trust(pair, case):
    _bare, mine, peer = pair
    old, new, attr, before, words = SETTING_CASES[case]
    edit_toml(peer, old, new)
    peer_memory(peer, "build-cache")
    peer_push(peer, "tune the vault")

    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr
    assert words in r.stderr  # the sync says so at once
    assert new in (mine / "vault.toml").read_text()  # the peer's file arrived, as git says
    cfg, notes = in_force(mine)
    assert getattr(cfg, attr) == before  # ...but is not in force
    assert any(words in n and "`vault-mem trust` in a terminal" in n for n in notes), notes
    assert not any("forget" in n for n in notes), notes  # a peer's key or value is never quoted to the agent
    r = vm(mine, "recall", "how do we deploy")
    assert r.returncode == 0 and "deploy-steps" in r.stdout, r.stderr
    assert words in r.stderr  # every command names the change
    r = vm(mine, "remember", "mine-after", "-d", "a fact written after the sync")
    assert r.returncode == 0, r.stderr
    assert git(mine, "log", "-1", "--format=%ae").strip() == "agent@vault-mem.local"

    shown = json.loads(vm(mine, "trust", "--json").stdout)
    assert shown["settings_pending"] and not shown["approved"] and shown["pending"]
    assert getattr(in_force(mine)[0], attr) == before  # showing approves nothing
    ok = approve(mine)
    assert ok.returncode == 0 and "approved" in ok.stdout, ok.stdout
    cfg, notes = in_force(mine)
    assert getattr(cfg, attr) != before and not notes
    assert vm(mine, "sync").returncode == 0


def test_a_fresh_clone_runs_on_the_defaults_until_approved(pair, tmp_path):
    _bare, _mine, peer = pair
    edit_toml(peer, "k = 5\n", "k = 5\nmin_similarity = -1.0\n")
    edit_toml(peer, 'name = "vault-mem agent"', 'name = "Test Person"')
    peer_push(peer)
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "fresh"))
    cfg, notes = in_force(tmp_path / "fresh")
    assert cfg.recall_min_similarity is None and cfg.agent_name == "vault-mem agent"
    assert any("min_similarity: None -> -1.0" in n and "the defaults stay in force" in n for n in notes), notes
    assert approve(tmp_path / "fresh").returncode == 0
    cfg, notes = in_force(tmp_path / "fresh")
    assert cfg.recall_min_similarity == -1.0 and cfg.agent_name == "Test Person" and not notes


#: 30 KB of valid TOML nested deeper than tomllib's recursion reaches (a RecursionError, not a TOML error)
TOO_DEEP = "[extra]\ndeep = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"


@pytest.mark.parametrize("case", ["limit-zero", "not-toml", "wrong-type", "control-chars", "too-deep"])
def test_a_peers_unusable_vault_toml_never_blocks_sync_or_reads(pair, case):
    _bare, mine, peer = pair
    toml = peer / "vault.toml"
    if case == "limit-zero":
        edit_toml(peer, "max_body_bytes = 65536", "max_body_bytes = 0")
    elif case == "not-toml":
        toml.write_text(toml.read_text() + "\n[[[ this is not toml\n")
    elif case == "wrong-type":
        edit_toml(peer, "k = 5", 'k = "all of them"')
    elif case == "too-deep":
        toml.write_text(toml.read_text() + "\n" + TOO_DEEP)
    else:
        edit_toml(peer, 'name = "vault-mem agent"', 'name = "x\\nCommitter: forged"')
    peer_memory(peer, "build-cache")
    peer_push(peer, "break the settings")

    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr
    assert (mine / "facts/build-cache.md").exists()
    cfg, notes = in_force(mine)
    assert cfg.max_body_bytes == 65536 and cfg.recall_k == 5 and cfg.agent_name == "vault-mem agent"
    assert any("is not used" in n and "approved on this machine before stay in force" in n for n in notes), notes
    for args in (["recall", "build cache"], ["list"], ["remember", "after-break", "-d", "a later fact"]):
        r = vm(mine, *args)
        assert r.returncode == 0 and "is not used" in r.stderr, (args, r.stderr)
    t = approve(mine)
    assert "not in force" in t.stdout + t.stderr
    assert in_force(mine)[0].max_body_bytes == 65536
    # the peer fixes it: the next sync brings it, and it waits for approval as any change
    git(peer, "pull", "-q", "origin", "main")
    toml.write_text((mine / "vault.toml").read_text().replace("[[[ this is not toml\n", "").replace(TOO_DEEP, "")
                    .replace("max_body_bytes = 0", "max_body_bytes = 4096").replace('k = "all of them"', "k = 5")
                    .replace('name = "x\\nCommitter: forged"', 'name = "vault-mem agent"'))
    peer_push(peer, "fix the settings")
    assert vm(mine, "sync").returncode == 0
    assert approve(mine).returncode == 0
    assert in_force(mine)[0].max_body_bytes in (4096, 65536)


def test_a_peers_deletion_of_vault_toml_keeps_the_approved_file(pair):
    _bare, mine, peer = pair
    edit_toml((mine), "k = 5", "k = 7")  # the person's own edit: in force without asking
    git(mine, "commit", "-q", "-am", "more hits")
    git(mine, "push", "-q", "origin", "main")
    git(peer, "pull", "-q", "origin", "main")
    git(peer, "rm", "-q", "vault.toml")
    peer_memory(peer, "build-cache")
    peer_push(peer, "no settings")

    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr
    assert (mine / "vault.toml").is_file() and (mine / "facts/build-cache.md").exists()
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 7
    assert any("vault.toml is in no commit" in n and "git add vault.toml" in n for n in notes), notes
    r = vm(mine, "recall", "build cache")
    assert r.returncode == 0 and "build-cache" in r.stdout, r.stderr
    # later syncs keep working, and a vault.toml the peer puts back is a change like any other
    (peer / "vault.toml").write_text((mine / "vault.toml").read_text().replace("k = 7", "k = 9"))
    peer_memory(peer, "second-note")
    peer_push(peer, "settings back")
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr
    assert (mine / "facts/second-note.md").exists()
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 7 and any("[recall] k: 7 -> 9" in n for n in notes), notes


def test_a_deletion_by_a_plain_git_pull_keeps_the_vault_working(pair):
    _bare, mine, peer = pair
    git(peer, "rm", "-q", "vault.toml")
    peer_memory(peer, "build-cache")
    peer_push(peer, "no settings")
    git(mine, "pull", "-q", "origin", "main")
    assert not (mine / "vault.toml").exists()
    for args in (["list"], ["recall", "build cache"]):
        r = cli(*args, cwd=mine / "facts")  # found from inside, as from anywhere in it
        assert r.returncode == 0 and "build-cache" in r.stdout, r.stderr
        assert "vault.toml is missing" in r.stderr and "~1 -- vault.toml" in r.stderr, r.stderr
    assert vm(mine, "sync").returncode == 0
    assert in_force(mine)[0].recall_k == 5


def test_the_persons_own_edits_need_no_approval(pair):
    _bare, mine, _peer = pair
    toml = mine / "vault.toml"
    approved = toml.read_text()
    toml.write_text(approved.replace("k = 5", "k = 8"))
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 8 and not notes  # an uncommitted edit made here
    git(mine, "commit", "-q", "--no-verify", "-am", "more hits")
    assert in_force(mine)[0].recall_k == 8  # recorded when it was read: committing changes nothing
    # a broken edit of the person's: everything keeps working on the settings approved before
    toml.write_text(approved.replace("k = 5", "k = 0"))
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 8 and any("your uncommitted edit" in n and "[recall] k" in n for n in notes), notes
    assert vm(mine, "recall", "deploy").returncode == 0
    # put back to an approved version: in force without asking again
    toml.write_text(approved)
    assert in_force(mine)[0].recall_k == 5


def test_the_remotes_file_on_its_way_in_is_not_an_edit(pair):
    """A checkout or pull writes the work tree before it moves HEAD, and a sync walks it through
    the remote's files before its ref update: a command (the daemon's reload) reading vault.toml
    in between sees the remote's bytes ahead of HEAD. They are a fetched blob, not an edit."""
    _bare, mine, peer = pair
    edit_toml(peer, "k = 5\n", "k = 5\nmin_similarity = -1.0\n")
    peer_push(peer)
    git(mine, "fetch", "-q", "origin")
    (mine / "vault.toml").write_bytes(git(mine, "show", "origin/main:vault.toml").encode())
    cfg, notes = in_force(mine)
    assert cfg.recall_min_similarity is None and any("min_similarity: None -> -1.0" in n for n in notes)
    # and while sync's journal says a sync is under way, no changed vault.toml is an edit either
    (mine / "vault.toml").write_text((mine / "vault.toml").read_text().replace("-1.0", "-0.5"))
    (mine / ".vault-mem/sync.json").write_text("{}")
    assert in_force(mine)[0].recall_min_similarity is None
    (mine / ".vault-mem/sync.json").unlink()


def test_an_approval_of_an_earlier_vault_mem_carries_over(pair, tmp_path):
    """trusted.json from before whole files were approved held the outbound settings only: a
    file whose outbound settings it approved stays in force; any other is pending."""
    import os

    _bare, _mine, peer = pair
    edit_toml(peer, 'provider = "local"', 'provider = "ollama"\nurl = "http://127.0.0.1:9"\nmodel = "m"')
    edit_toml(peer, "k = 5", "k = 9")
    peer_push(peer)
    trusted = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem/trusted.json"
    legacy = {"embedder.provider": "ollama", "embedder.url": "http://127.0.0.1:9", "embedder.api_key_env": "",
              "embedder.model": "m", "sync.remote": "", "sync.interval_s": 0.0, "sync.after_write": False}
    for name, url in (("same", "http://127.0.0.1:9"), ("other", "http://127.0.0.1:10")):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(clone))
        data = json.loads(trusted.read_text())
        data["vaults"][str(clone.resolve())] = {"settings": {**legacy, "embedder.url": url}}
        trusted.write_text(json.dumps(data))
        cfg, notes = in_force(clone)
        if name == "same":
            assert cfg.embedder.url == "http://127.0.0.1:9" and cfg.recall_k == 9 and not notes
        else:
            assert cfg.embedder.url == "" and cfg.recall_k == 5 and notes


# -- B. files git itself interprets arrive only with approval ---------------------------------

GIT_FILE_CASES = {
    ".gitattributes": "* merge=vault-mem-index\n",
    ".gitmodules": '[submodule "tools"]\n\tpath = tools\n\turl = ../evil.git\n',
    ".mailmap": "Test Person <person@example.com> Peer <peer@example.com>\n",
    ".gitignore": None,  # the template's, with facts/* added
    "facts/.gitattributes": "*.md filter=peer\n",
}


@pytest.mark.parametrize("name", sorted(GIT_FILE_CASES))
def test_a_file_git_interprets_is_refused_by_name_until_approved(pair, name):
    _bare, mine, peer = pair
    path = peer / name
    content = GIT_FILE_CASES[name]
    path.write_text(content if content is not None else path.read_text() + "facts/*\n")
    peer_memory(peer, "build-cache")
    git(peer, "add", "-f", "-A")
    peer_push(peer, f"add {name}")
    before = (mine / name).read_bytes() if (mine / name).exists() else None

    r = vm(mine, "sync")
    assert r.returncode == 1 and repr(name) in r.stderr and "vault-mem trust" in r.stderr, r.stderr
    assert "nothing changed" in r.stderr
    assert ((mine / name).read_bytes() if (mine / name).exists() else None) == before
    assert not (mine / "facts/build-cache.md").exists()
    assert vm(mine, "recall", "deploy").returncode == 0  # reads are untouched

    shown = json.loads(vm(mine, "trust", "--json").stdout)
    assert [f["path"] for f in shown["git_files"]] == [name] and not shown["approved"]
    # its text: shown on the person's terminal, never to a run without one (an agent's shell)
    assert shown["git_files"][0]["shown"] is None
    person = at_terminal("--vault", str(mine), "trust", answer=None).stdout
    assert ("facts/*" if content is None else content.splitlines()[0][:12]) in person, person
    assert vm(mine, "sync").returncode == 1  # showing approves nothing
    ok = approve(mine)
    assert ok.returncode == 0 and name in ok.stdout, ok.stdout
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr
    assert (mine / name).read_bytes() == path.read_bytes() and (mine / "facts/build-cache.md").exists()
    # approved is that version only: a further change is refused again
    path.write_text(path.read_text() + "# more\n")
    peer_push(peer, f"change {name} again")
    assert vm(mine, "sync").returncode == 1


def test_ignored_memory_folders_are_named_by_every_command_and_doctor(pair, tmp_path):
    _bare, _mine, peer = pair
    gi = peer / ".gitignore"
    gi.write_text(gi.read_text() + "facts/*\n")
    peer_push(peer, "ignore")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(fresh))
    r = vm(fresh, "list")
    assert r.returncode == 0 and "git ignores new memory files in facts/" in r.stderr, r.stderr
    d = vm(fresh, "doctor", "--json")
    data = json.loads(d.stdout)
    assert d.returncode == 1 and data["ignored_folders"] == ["facts/"] and not data["ok"]
    gi = fresh / ".gitignore"
    gi.write_text(gi.read_text().replace("facts/*\n", ""))  # fixed: the notice goes
    assert "git ignores" not in vm(fresh, "list").stderr


def test_an_ignore_rule_that_spares_one_name_still_names_the_folder_of_a_hidden_memory(pair, tmp_path):
    """A peer's ignore rules that hide every memory file but the one name a probe would ask
    about (``*.md`` then ``!new-memory.md``): the person's hand-written memory is in no commit
    and no sync while ``git status`` is clean. Every command and doctor name the folders from the
    first command after the rules arrive (names drawn at random and the memory names there are
    asked too, as if new), and still once such a file exists; the answer is kept until an ignore
    file changes, so a command after a write walks no folder."""
    _bare, _mine, peer = pair
    gi = peer / ".gitignore"
    gi.write_text(gi.read_text() + "*.md\n!new-memory.md\n!INDEX.md\n!README.md\n")
    peer_push(peer, "tidy the ignore rules")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(fresh))
    first = vm(fresh, "list").stderr  # no file hidden yet, but the rules would hide every new one
    assert "git ignores new memory files in" in first and "facts/" in first, first
    (fresh / "facts" / "staging-host.md").write_text("---\ndescription: The staging host is stg-2\n---\n")
    git(fresh, "add", "-A")
    assert git(fresh, "status", "--porcelain").strip() == ""  # git hides it: status clean
    r = vm(fresh, "list")
    assert r.returncode == 0 and "git ignores new memory files in" in r.stderr and "facts/" in r.stderr, r.stderr
    d = vm(fresh, "doctor", "--json")
    assert d.returncode == 1 and "facts/" in json.loads(d.stdout)["ignored_folders"], d.stdout
    gi = fresh / ".gitignore"
    gi.write_text(gi.read_text().replace("*.md\n", ""))  # fixed: the notice goes
    assert "git ignores" not in vm(fresh, "list").stderr


def _vault_ignoring(tmp_path, key: str, rules: str):
    """A vault holding the memory ``key`` (a fact), with ``rules`` added to its .gitignore."""
    vault = new_vault(tmp_path / "vault")
    vault.remember(key, f"The memory {key}", type="fact")
    vault.close()
    gi = vault.root / ".gitignore"
    gi.write_text((gi.read_text() if gi.exists() else "") + rules)
    return vault.root


def test_an_ignore_rule_aimed_at_the_names_a_person_uses_is_named(tmp_path):
    """A rule that spares every probe name but matches the names the person's memories already
    have (``facts/editor-*.md``): the next ``editor-...`` memory written by hand would be in no
    commit and no sync. The memory names present are asked as if new, so the folder is named
    at once; after the rule is gone, nothing is said."""
    root = _vault_ignoring(tmp_path, "editor-choice", "facts/editor-*.md\n")
    r = cli("--vault", str(root), "list")
    assert r.returncode == 0 and "git ignores new memory files in facts/" in r.stderr, r.stderr
    gi = root / ".gitignore"
    gi.write_text(gi.read_text().replace("facts/editor-*.md\n", ""))
    assert "git ignores" not in cli("--vault", str(root), "list").stderr


def test_an_ignore_rule_sparing_every_hyphenated_name_is_named(tmp_path):
    """The probe names once all held a hyphen: ``facts/*.md`` then ``!facts/*-*.md`` spared them
    and every memory present, and hid the next one-word memory (``facts/wifi.md``) with nothing
    said. Names of every shape a key takes are asked now."""
    root = _vault_ignoring(tmp_path, "deploy-host", "facts/*.md\n!facts/*-*.md\n")
    r = cli("--vault", str(root), "list")
    assert "git ignores new memory files in facts/" in r.stderr, r.stderr


def test_doctor_asks_git_afresh_about_a_memory_written_since_the_ignore_answer(tmp_path):
    """A rule that matched no name when it was asked (``facts/wifi*.md``) hides the hand-written
    ``facts/wifi.md`` written since. ``doctor`` asks git afresh and names it; so does the next
    command, since the type folder changed (attack24: the rules' answer was kept until an ignore
    file changed, and only ``doctor`` said it, `tests/test_peer_attacks16.py`)."""
    root = _vault_ignoring(tmp_path, "deploy-host", "facts/wifi*.md\n")
    assert "git ignores" not in cli("--vault", str(root), "list").stderr  # nothing it hides yet
    (root / "facts" / "wifi.md").write_text("---\ndescription: The office wifi is on the second floor\n---\n")
    assert "git ignores new memory files in facts/" in cli("--vault", str(root), "list").stderr
    d = cli("--vault", str(root), "doctor", "--json")
    assert d.returncode == 1 and json.loads(d.stdout)["ignored_folders"] == ["facts/"], d.stdout


def test_a_memory_name_that_is_not_utf8_never_breaks_the_ignore_check(tmp_path):
    """A peer can push a memory-named file whose name is not UTF-8: asking git about it raised
    UnicodeEncodeError (in the ignore check, and in the scan storing its path) and every command
    failed with an internal error. Such a name is no memory (no key is made of other bytes)."""

    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.close()
    try:
        (root / "facts" / os.fsdecode(b"caf\xe9.md")).write_text("---\ndescription: x\n---\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses a name that is not UTF-8")
    gi = root / ".gitignore"
    gi.write_text((gi.read_text() if gi.exists() else "") + "# touched\n")  # the answer is asked again
    r = cli("--vault", str(root), "list")
    assert "internal error" not in r.stderr, r.stderr
