"""The quarantine (DESIGN §7): a memory file holding a credential, whether a person saved it or a
peer's commit brought it, is not committed, not listed in INDEX.md, not returned by recall, get
or list, never embedded and never quoted in a message, until the value is removed; then it comes
back by itself. ``doctor`` and ``review`` name the file, the kind, the line and the fix.

Credential-shaped strings are built at run time from split prefixes and a seeded generator, so
this file holds no literal that a secret scanner would flag.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import cli, git, new_vault
from fakes import FakeEmbedder, aws_key, github_token

from vault_mem import Vault
from vault_mem.adapters import contexts, tools
from vault_mem.errors import QuarantinedFileError, SecretError, VaultMemError
from vault_mem.model.memory import Memory
from vault_mem.ops import review as hygiene
from vault_mem.store.trust import seal
from vault_mem.sync.remote import sync
from vault_mem.vault.hand_edits import edit_message


def memory_file(description: str, body: str = "") -> str:
    return f"---\ndescription: {description}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n\n{body}"


def db_text(v: Vault) -> str:
    """Every text the sidecar keeps about the files: rows, FTS, tags (what recall could return)."""
    rows = v.sidecar.db.execute("SELECT * FROM files").fetchall()
    fts = v.sidecar.db.execute("SELECT description, body, extra FROM fts").fetchall()
    return json.dumps([list(r) for r in rows] + [list(r) for r in fts], default=str)


def everything_the_agent_sees(v: Vault, key: str, query: str) -> str:
    """INDEX.md (file and MCP resource text), list, recall, get, the hooks' injected context."""
    out = [tools.context_index(v), (v.root / "INDEX.md").read_text()]
    for name, args in (("list", {}), ("recall", {"query": query}), ("get", {"key": key})):
        out.append(tools.call_tool(v, name, args).text)
    out.append(contexts.session_context(v, {}))
    out.append(contexts.prompt_context(v, {"prompt": query}) or "")
    return "\n".join(out)


# -- a person's hand edit ----------------------------------------------------------------------
def test_a_hand_edit_holding_a_credential_is_kept_from_the_agent_until_fixed(vault):
    secret = aws_key()
    vault.remember("deploy", "How the staging deploy works", "Run make deploy from the repo root.")
    path = vault.root / "facts/deploy.md"
    clean = path.read_text()
    path.write_text(clean + f"\nThe upload key is {secret} for now.\n")  # an existing file gains one
    (vault.root / "facts/ci-box.md").write_text(memory_file(f"CI box key {secret}", "A new file."))

    seen = everything_the_agent_sees(vault, "deploy", "staging deploy upload key")
    assert secret not in seen
    assert "deploy" not in (vault.root / "INDEX.md").read_text()  # not listed, not even the old version
    assert [e["key"] for e in vault.list()] == []
    assert vault.recall("staging deploy upload key").hits == []
    assert secret not in db_text(vault)  # nothing of it in the rows or the keyword index
    with pytest.raises(QuarantinedFileError) as err:
        vault.get("deploy")
    assert "facts/deploy.md" in str(err.value) and "AWS access key" in str(err.value)
    assert "line " in str(err.value) and secret not in str(err.value)
    tool = tools.call_tool(vault, "get", {"key": "ci-box"})
    assert tool.is_error and "facts/ci-box.md is quarantined" in tool.text and secret not in tool.text
    r = cli("--vault", str(vault.root), "get", "deploy")
    assert r.returncode == 1 and "quarantined" in r.stderr and secret not in r.stdout + r.stderr
    for args in (["list"], ["recall", "staging deploy"], ["index"], ["review"]):
        r = cli("--vault", str(vault.root), *args)
        assert secret not in r.stdout + r.stderr, args

    # fixed by hand: back everywhere, no manual step
    path.write_text(clean + "\nThe upload key lives in the team's 1Password (item 'staging upload').\n")
    (vault.root / "facts/ci-box.md").unlink()
    assert [e["key"] for e in vault.list()] == ["deploy"]
    assert vault.get("deploy").body.endswith("(item 'staging upload').\n")
    assert [h.key for h in vault.recall("staging deploy").hits] == ["deploy"]
    assert "deploy" in (vault.root / "INDEX.md").read_text()
    assert vault.sidecar.doctor() == [] and vault.sidecar.problems() == []


def test_a_quarantined_file_is_never_embedded(tmp_path):
    """An HTTP embedder would ship the text off the machine: the embedder never sees it."""
    secret = github_token()

    class Recording(FakeEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def embed_batch(self, texts, *, kind: str = "document") -> np.ndarray:
            self.seen.extend(texts)
            return super().embed_batch(texts, kind=kind)

    emb = Recording()
    new_vault(tmp_path / "v").close()
    v = Vault(tmp_path / "v", embedder=emb)
    try:
        v.remember("release", "How releases are cut", "Tag, then push the tag.")
        path = v.root / "procedures/bot.md"
        path.write_text(memory_file("Release bot settings", f"token {secret} for the bot\n"))
        v.recall("release bot token")
        v.sidecar.vectors.embed_pending()
        assert emb.seen and not any(secret in t for t in emb.seen)
        assert not any("Release bot" in t for t in emb.seen)  # none of its text at all
    finally:
        v.close()


def test_a_vault_indexed_before_the_quarantine_existed_is_rechecked(vault):
    """Rows indexed under other secret rules (an older vault-mem) are re-judged by the next read."""
    secret = aws_key()
    (vault.root / "facts/old.md").write_text(memory_file("Old notes", f"key {secret}\n"))
    gate = vault.sidecar.policy
    vault.sidecar.policy = None  # index it the way the old code did: no quarantine
    vault.reconcile()
    assert secret in db_text(vault) and "old" in (vault.root / "INDEX.md").read_text()
    vault.sidecar.policy = gate
    vault.reconcile()
    assert secret in db_text(vault)  # same rules recorded: no re-read (reconcile stays cheap)
    vault.sidecar.set_meta("secret_gate", "rules-of-an-older-version")
    vault.reconcile()
    assert secret not in db_text(vault)
    assert "old" not in (vault.root / "INDEX.md").read_text() and vault.list() == []


def test_doctor_and_review_name_the_file_kind_line_and_fix(vault):
    secret = aws_key()
    path = vault.root / "facts/deploy.md"
    path.write_text(memory_file("Deploy notes", f"Line one.\nThe key is {secret}.\n"))
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "The key is" in ln)
    r = cli("--vault", str(vault.root), "doctor")
    assert r.returncode == 1, r.stdout
    assert secret not in r.stdout + r.stderr
    assert f"credential in facts/deploy.md holds what looks like an AWS access key (body, line {line})" in r.stdout
    assert "remove the value from facts/deploy.md, store it in a secret manager" in r.stdout.lower()
    data = json.loads(cli("--vault", str(vault.root), "doctor", "--json").stdout)
    assert data["ok"] is False
    [q] = data["quarantined"]
    assert q["path"] == "facts/deploy.md" and q["in_history"] is False
    assert q["findings"] == [{"field": "body", "kind": "AWS access key", "line": line}]
    [item] = hygiene.review(vault)
    assert item["flag"] == "secret" and item["path"] == "facts/deploy.md"
    assert "AWS access key" in item["detail"] and f"line {line}" in item["detail"]
    r = cli("--vault", str(vault.root), "review")
    assert r.stdout.splitlines()[1].startswith("secret") and secret not in r.stdout  # under the data line
    path.write_text(memory_file("Deploy notes", "Line one.\nThe key is in the vault's secret store.\n"))
    assert cli("--vault", str(vault.root), "doctor").returncode == 0


def test_forget_and_remember_of_a_quarantined_hand_edit_never_say_commit_it(vault):
    secret = github_token()
    vault.remember("bot", "Bot settings", "Nothing secret.")
    path = vault.root / "facts/bot.md"
    path.write_text(path.read_text() + f"token {secret}\n")
    for write in (lambda: vault.forget("bot"), lambda: vault.remember("bot", "Bot settings", "new body")):
        with pytest.raises(QuarantinedFileError) as err:
            write()
        assert "commit" not in str(err.value).split("quarantined", 1)[0]
        assert "Remove the value from facts/bot.md" in str(err.value) and secret not in str(err.value)
    assert secret not in git(vault.root, "log", "--all", "-p")


# -- the daemon's commits ------------------------------------------------------------------------
def test_the_daemons_commit_message_never_quotes_a_peers_credential(vault):
    """A file deleted by hand whose committed version held a credential in its description (a
    peer's commit): the daemon's commit message names the key and masks the value."""
    secret = github_token()
    (vault.root / "facts/ci.md").write_text(memory_file(f"CI uses {secret}"))
    git(vault.root, "add", "facts/ci.md")
    git(vault.root, "commit", "-q", "--no-verify", "-m", "a peer's commit, hook skipped")
    message = edit_message(vault, {"facts/ci.md": None}, vault.repo.head(), note="Edited by hand.")
    assert message.startswith("edit: ci — CI uses [GitHub token removed]")
    assert secret not in message
    vault.ws.policy.check_message(message)  # so the deletion can be committed


# -- sync ----------------------------------------------------------------------------------------
@pytest.fixture
def vaults(pair):
    """conftest's ``pair`` opened: the victim ``a`` and the clone ``b`` (agent ``agent-b``) as vaults."""
    _, a_root, peer = pair
    a, b = Vault(a_root, agent="agent-a"), Vault(peer, agent="agent-b")
    yield a, b
    a.close()
    b.close()


@pytest.mark.parametrize("local_write", [False, True])
def test_a_credential_arriving_by_sync_is_quarantined_with_the_purge_recipe(vaults, local_write):
    a, b = vaults
    secret = aws_key()
    (a.root / "facts/uploads.md").write_text(memory_file(f"Upload key {secret}", "For the CDN bucket.\n"))
    git(a.root, "add", "facts/uploads.md")
    git(a.root, "commit", "-q", "--no-verify", "-m", "notes on uploads")  # past the pre-commit hook
    git(a.root, "push", "-q", "origin", "main")
    if local_write:
        b.remember("editor", "Uses Helix as the main editor")
    report = sync(b)  # accepted: the commit is public on the remote already
    [q] = report.quarantined
    assert q["path"] == "facts/uploads.md" and "AWS access key" in q["reason"]
    recipe = q["how_to_purge"]
    assert "rotate" in recipe and "git filter-repo --path facts/uploads.md --invert-paths" in recipe
    assert "--replace-text" in recipe and "force-push" in recipe and "re-clone" in recipe
    assert secret not in json.dumps(report.to_dict()) and secret not in report.summary()
    assert "facts/uploads.md" in report.summary()
    assert (b.root / "facts/uploads.md").is_file()  # taken, not refused
    assert secret not in everything_the_agent_sees(b, "uploads", "upload key CDN bucket")
    assert secret not in db_text(b)
    # no commit made on this machine lists it in its INDEX.md
    for commit in git(b.root, "log", "--format=%H", "--author=agent-b", "HEAD").split():
        assert secret not in git(b.root, "show", f"{commit}:INDEX.md")
    if local_write:
        assert git(b.root, "log", "--format=%an", "--author=agent-b", "HEAD").strip()
    data = json.loads(cli("--vault", str(b.root), "doctor", "--json").stdout)
    [d] = data["quarantined"]
    assert d["in_history"] is True and "git filter-repo" in d["fix"] and secret not in json.dumps(data)
    # forgetting it is one fix: its commit message does not quote the value either
    b.forget("uploads")
    assert secret not in git(b.root, "log", "-1", "--format=%B")
    assert git(b.root, "log", "-1", "--format=%s").startswith("forget: uploads")


# -- identity strings ------------------------------------------------------------------------------
def test_an_agent_identity_holding_a_credential_is_refused_on_every_write_path(vault):
    secret = github_token()
    with Vault(vault.root, agent=secret) as v, pytest.raises(SecretError, match="commit author"):
        v.import_memories([Memory("m1", "fact", {"description": "one"})], message="import: one")
    assert not (vault.root / "facts/m1.md").exists()
    toml = vault.root / "vault.toml"
    toml.write_text(toml.read_text().replace('"agent@vault-mem.local"', f'"{secret}@example.com"'))
    # the email comes from vault.toml, which a peer can change
    with Vault(vault.root) as v, pytest.raises(SecretError, match="commit author"):
        v.remember("m2", "two")
    assert secret not in git(vault.root, "log", "--all", "--format=%an %ae %cn %ce %B")


def test_a_journal_naming_an_agent_that_holds_a_credential_is_dropped(vault):
    secret = github_token()
    vault.remember("fact-01", "a fact", "body")
    journal = {"key": f"fact-01 {secret}", "agent": secret,
               "message": "remember: fact-01 — a fact\n\nMemory-Key: fact-01\n",
               "files": {"facts/fact-01.md": "---\ndescription: a fact\n---\nnew body\n"}}
    # signed as this machine's own (a damaged one): the checks behind the signature
    (vault.state_dir / "pending.json").write_bytes(seal(vault.root, "pending.json", journal))
    vault.remember("other", "another fact")
    notices = vault.take_notices()
    assert any("dropped the journal" in n and "commit author" in n for n in notices), notices
    assert secret not in "".join(notices)
    assert secret not in git(vault.root, "log", "--all", "--format=%an %ae %B")


# -- the pre-commit hook ---------------------------------------------------------------------------
def test_a_persons_commit_neither_takes_nor_lists_a_quarantined_file(vault):
    """The pre-commit hook refuses a staged file holding a credential, and the INDEX.md it stages
    and writes for other commits leaves an unstaged quarantined file out."""
    secret = aws_key()
    root = vault.root
    (root / "facts/keys.md").write_text(memory_file(f"Keys {secret}"))
    git(root, "add", "facts/keys.md")
    proc = git(root, "commit", "-q", "-m", "add keys", check=False)
    assert git(root, "diff", "--cached", "--name-only").strip() == "facts/keys.md", proc
    git(root, "reset", "-q")
    (root / "facts/editor.md").write_text(memory_file("Uses Helix as the main editor"))
    git(root, "add", "facts/editor.md")
    git(root, "commit", "-q", "-m", "editor by hand")
    assert "editor" in git(root, "show", "HEAD:INDEX.md")
    assert secret not in git(root, "log", "--all", "-p") and secret not in (root / "INDEX.md").read_text()
    assert "keys" not in (root / "INDEX.md").read_text()


def test_every_message_names_the_file_and_kind_never_the_value(vault, caplog):
    """Log lines (the daemon's go through the same sidecar logger), notices and errors."""
    secret = github_token()
    (vault.root / "facts/bot.md").write_text(memory_file("Bot settings", f"token {secret}\n"))
    with caplog.at_level("INFO"):
        vault.reconcile()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "'facts/bot.md': quarantined" in logged and "GitHub token" in logged and secret not in logged
    [p] = vault.sidecar.problems()
    assert p.quarantined and secret not in p.reason
    with pytest.raises(VaultMemError) as err:
        vault.check_not_dirty("facts/bot.md")
    assert secret not in str(err.value)


def test_scan_and_the_quarantine_agree(vault):
    """One rule: what scan reports in a memory file is what quarantines it."""
    secret, token = aws_key(), github_token()
    Path(vault.root / "facts/a.md").write_text(memory_file("A", f"key {secret}\n"))
    Path(vault.root / "facts/b.md").write_text(memory_file("B", "nothing here\n") .replace(
        "created:", f"api: {token}\ncreated:"))
    Path(vault.root / "facts/c.md").write_text(memory_file("C", "a git sha 3f2a9c1e0b7d4a6f8e9c1b2a3d4e5f60718293a4\n"))
    vault.reconcile()
    scanned = {f["path"] for f in hygiene.scan(vault)}
    quarantined = {p.path for p in vault.sidecar.problems() if p.quarantined}
    assert scanned == quarantined == {"facts/a.md", "facts/b.md"}


# -- the other write paths: each passes the one gate ---------------------------------------------
def _commit_past_the_hook(root: Path, rel: str, text: str) -> None:
    """A commit that holds a credential: a peer's, or a person's made with --no-verify."""
    (root / rel).write_text(text)
    git(root, "add", rel)
    git(root, "commit", "-q", "--no-verify", "-m", f"add {rel}")


def test_a_move_keeps_no_credential_from_the_old_file(vault):
    """remember with another type rewrites the old file's fields: a credential kept in one of
    them is refused, and nothing is written."""
    token = github_token()
    _commit_past_the_hook(vault.root, "facts/bot.md", memory_file("Bot settings").replace(
        "created:", f"api: {token}\ncreated:"))
    head = vault.repo.head()
    for type_ in ("procedure", "fact"):  # a move, and an update in place
        with pytest.raises(SecretError, match="frontmatter field 'api'"):
            vault.remember("bot", "Bot settings", "How the bot is set up.", type=type_)
    assert vault.repo.head() == head and not (vault.root / "procedures/bot.md").exists()
    assert "How the bot" not in (vault.root / "facts/bot.md").read_text()
    vault.forget("bot")  # forgetting it is the fix that goes through
    assert token not in git(vault.root, "log", "-1", "--format=%B")


def test_resolve_does_not_keep_a_conflict_copy_holding_a_credential(vault):
    secret = aws_key()
    vault.remember("editor", "Uses Helix as the main editor")
    copy = "facts/editor.conflict-abc1234.md"
    _commit_past_the_hook(vault.root, copy, memory_file("Uses Zed", f"key {secret}\n").replace(
        "created:", "conflict_of: editor\ncreated:"))
    from vault_mem.sync.resolve import resolve

    with pytest.raises(SecretError, match="AWS access key"):
        resolve(vault, "editor", keep="mine")
    assert secret not in (vault.root / "facts/editor.md").read_text()
    resolve(vault, "editor", keep="theirs")  # dropping the copy is a fix: its message is clean
    assert not (vault.root / copy).exists()
    assert secret not in git(vault.root, "log", "-1", "--format=%B")


def test_log_masks_a_credential_in_a_commit_subject(vault):
    secret = github_token()
    (vault.root / "notes/x.md").write_text(memory_file("x"))
    git(vault.root, "add", "notes/x.md")
    git(vault.root, "commit", "-q", "--no-verify", "-m", f"notes with {secret}")
    [entry, *_] = vault.log()
    assert entry.subject == "notes with [GitHub token removed]"
    r = cli("--vault", str(vault.root), "log", "--json")
    assert r.returncode == 0 and secret not in r.stdout


def test_a_fresh_clone_never_serves_a_peers_credential_even_from_its_committed_index(tmp_path):
    """The first command in a clone regenerates INDEX.md rather than serve the committed one,
    which a peer's vault-mem (an older one, or a hand edit) may have written with the value."""
    secret = aws_key()
    a = new_vault(tmp_path / "a")
    a.close()
    (a.root / "facts/cdn.md").write_text(memory_file(f"CDN key {secret}"))
    index = a.root / "INDEX.md"
    index.write_text(index.read_text() + f"- cdn: CDN key {secret}\n")
    git(a.root, "add", "-A")
    git(a.root, "commit", "-q", "--no-verify", "-m", "cdn notes")
    git(tmp_path, "clone", "-q", str(a.root), str(tmp_path / "b"))
    with Vault(tmp_path / "b") as b:
        assert secret not in everything_the_agent_sees(b, "cdn", "CDN key")
        assert [q["path"] for q in hygiene.quarantined(b)] == ["facts/cdn.md"]
        # a later `git pull` that changes INDEX.md alone: what the agent is served is still vetted
        other = aws_key()
        index.write_text(index.read_text() + f"- cdn2: other key {other}\n")
        git(a.root, "commit", "-q", "--no-verify", "-am", "index by hand")
        git(b.root, "checkout", "-q", "--", "INDEX.md")  # the regenerated one was never committed
        git(b.root, "pull", "-q", "--no-rebase")
        assert other in (b.root / "INDEX.md").read_text()  # git put it there; no memory file changed
        assert other not in tools.context_index(b) and other not in contexts.session_context(b, {})


@pytest.mark.parametrize("remote_moved", [False, True])
def test_sync_refuses_to_publish_a_local_commit_holding_a_credential(vaults, remote_moved):
    """A person's commit made past the pre-commit hook is not replayed or pushed: it has not left
    this machine yet. Nothing is pushed and nothing local changes."""
    a, b = vaults
    secret = github_token()
    if remote_moved:  # the replay path: the remote has commits of its own
        a.remember("editor", "Uses Helix as the main editor")
        sync(a)
    _commit_past_the_hook(b.root, "facts/bot.md", memory_file("Bot settings", f"token {secret}\n"))
    before = git(b.root, "rev-parse", "HEAD")
    with pytest.raises(VaultMemError, match=r"would publish facts/bot.md, which holds what looks like a GitHub token") as err:
        sync(b)
    assert secret not in str(err.value) and "nothing was pushed" in str(err.value)
    assert git(b.root, "rev-parse", "HEAD") == before
    bare = b.root.parent / "remote.git"
    assert secret not in git(bare, "log", "--all", "-p")
    # taken out of the local history (here: the commit dropped), the sync goes through
    git(b.root, "reset", "-q", "--hard", "HEAD~1")
    sync(b)
    assert secret not in git(bare, "log", "--all", "-p")


def test_sync_still_takes_a_peers_file_that_this_machine_then_edits(vaults):
    """A file the remote holds a credential in already is a peer's leak, quarantined here; a
    local commit touching it does not stop the sync (it publishes nothing new)."""
    a, b = vaults
    secret = aws_key()
    _commit_past_the_hook(a.root, "facts/cdn.md", memory_file("CDN notes", f"key {secret}\n"))
    git(a.root, "push", "-q", "origin", "main")
    sync(b)
    path = b.root / "facts/cdn.md"
    path.write_text(path.read_text() + "More notes.\n")
    git(b.root, "commit", "-q", "--no-verify", "-am", "more cdn notes")
    sync(b)
    assert git(b.root, "rev-parse", "HEAD") == git(b.root.parent / "remote.git", "rev-parse", "main")


def test_the_gate_fingerprint_is_the_same_before_and_after_the_gate_is_imported():
    """The fingerprint reads the rules' files without importing them (a process that checks no
    text never imports the gate): in a fresh process, the digest taken before the gate's
    modules are imported equals the one taken after, and the modules were not imported by it."""
    code = ("import sys\n"
            "from vault_mem.index import scan\n"
            "before = scan.gate_fingerprint()\n"
            "names = [getattr(m, '__name__', m) for m in scan.GATE_MODULES]\n"
            "unimported = [n for n in names if n not in sys.modules]\n"
            "import vault_mem.model.secrets, vault_mem.model.policy as p\n"
            "p.check_text('a field', 'plain words')\n"
            "print(before, scan.gate_fingerprint(), len(unimported), all(n in sys.modules for n in names))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    before, after, unimported, all_loaded = out
    assert before == after
    assert int(unimported) >= 20 and all_loaded == "True"


def test_gate_fingerprint_covers_every_module_of_the_secret_rules():
    """A rule added to the table or a change to the normaliser must make old sidecars re-check
    their files: every vault_mem.model module the detection imports is in the fingerprint."""
    import ast
    import importlib

    from vault_mem.index import scan

    hashed = set(scan.GATE_MODULES)  # by name: the fingerprint reads their files unimported
    todo, seen = ["vault_mem.model.secrets"], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse(Path(importlib.import_module(name).__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vault_mem.model."):
                todo.append(node.module)
    assert seen <= hashed, f"not in scan.GATE_MODULES: {sorted(seen - hashed)}"
