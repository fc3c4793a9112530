"""review56: defects found by a review of attack54, hooks54 and sec51, each with the test that
failed on the code before its fix. Real git, real CLI, real files; nothing mocked."""

from __future__ import annotations

import os
import subprocess

from conftest import PEER_EMAIL, cli, git, person_and_peer

PEER = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}
#: what a terminal runs (an OSC title, BEL) or shows reversed (U+202E), as a peer's description holds them
HOSTILE = "Release \\e]0;pwned\\a \\u202e gnp.exe"
RAW = "\x1b\x07\u202e"


def _peer_git(peer, *args: str) -> None:
    subprocess.run(["git", *args], cwd=peer, env={**os.environ, **PEER}, check=True, capture_output=True)


def test_an_imported_supersedes_never_hides_a_memory_written_after_the_import(tmp_path):
    """attack54 dropped an imported ``supersedes`` item only when the vault held that key at the
    import: a teammate's note naming ``deploy-rule`` before the person had one lay in wait, and
    the ``deploy-rule`` written later (by the person's agent) was hidden from recall and
    INDEX.md by the import's trusted commit. An import's ``supersedes`` keeps only the keys that
    same import brings."""
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    source = tmp_path / "team" / "decisions"
    source.mkdir(parents=True)
    (source / "team-deploys.md").write_text(
        "---\ndescription: Deploys go through the team script\nsupersedes: [deploy-rule, old-team-deploys]\n---\n"
        "Run ./deploy.sh from the team repo.\n")
    (source / "old-team-deploys.md").write_text("---\ndescription: Deploys went through make deploy\n---\nOld.\n")
    imported = cli("--vault", str(root), "import", str(tmp_path / "team"))
    assert imported.returncode == 0, imported.stderr
    assert "supersedes deploy-rule" in imported.stdout
    note = (root / "decisions" / "team-deploys.md").read_text()
    assert "deploy-rule" not in note and "old-team-deploys" in note  # the source's own chain is kept
    wrote = cli("--vault", str(root), "remember", "deploy-rule", "--type", "decision",
                "-d", "Deploys need a second person's review", "--body", "Agreed in the Nov retro.")
    assert wrote.returncode == 0, wrote.stderr
    assert "- deploy-rule" in (root / "INDEX.md").read_text()
    assert "- old-team-deploys" not in (root / "INDEX.md").read_text()
    assert '"deploy-rule"' in cli("--vault", str(root), "recall", "deploys", "review", "--json").stdout


def test_a_hand_edit_commit_quotes_a_peers_description_escaped(tmp_path):
    """attack54 escaped the subject of commits made through ``steps.commit_message`` alone; the
    commits of hand edits (the daemon's, ``vault-mem edit``'s) build their message elsewhere and
    quoted a peer's description raw: the person deleting a peer's memory by hand put its OSC
    sequence and U+202E into a commit of this machine's, run by every terminal that printed the
    history. Every message vault-mem commits is escaped where commits are made."""
    from vault_mem.store.git import Identity
    from vault_mem.vault.core import Vault
    from vault_mem.vault.hand_edits import commit_hand_edits

    mine, peer = person_and_peer(tmp_path)
    (peer / "facts" / "release-name.md").write_text(f'---\ndescription: "{HOSTILE}"\n---\nThe release name.\n')
    (peer / "facts" / "release-date.md").write_text(f'---\ndescription: "{HOSTILE} date"\n---\nThe release date.\n')
    _peer_git(peer, "add", "-A")
    _peer_git(peer, "commit", "-q", "--no-verify", "-m", "release")
    _peer_git(peer, "push", "-q", "origin", "main")
    assert cli("sync", "--vault", str(mine)).returncode == 0
    person = Identity("Test Person", "person@example.com")
    vault = Vault(mine)
    try:
        # one memory deleted (its description in the subject), then two (each in the body's list)
        for paths in (["facts/release-name.md"], ["facts/release-date.md", "preferences/editor-choice.md"]):
            for rel in paths:
                (mine / rel).unlink()
            with vault.lock:
                done = commit_hand_edits(vault, paths, who=(person, person), note="test", index_why="test")
            assert done.commit
            message = git(mine, "log", "-1", "--format=%B")
            assert not any(ch in message for ch in RAW), repr(message)
            assert "\\x1b]0;pwned\\x07 \\u202e" in message
    finally:
        vault.close()


def test_a_random_secret_under_a_composite_record_key_is_still_refused():
    """sec51 passed any value shaped ``NAME#...`` under a key's name as a single-table design's
    composite key (``SK: ORDER#2026-12-04``), whatever followed the ``#``:
    ``encryption_key=ENC#<random hex>`` and "signing key: SK#<random token>" went into history,
    where the gate before sec51 refused them. The record's parts name things (dates, numbers,
    words, UUIDs, ULIDs); a random token or random hex among them is a secret."""
    from secret_probe import HEX, Draw, all_pass, all_refused, uuid4

    d = Draw(5656)
    all_refused([f"encryption_key=ENC#{d.r(32, HEX)}", f"signing key: SK#{d.r(28)}",
                 f"api_key = 'TENANT#acme#{d.r(40)}'", f"secret_key: KEY#{d.r(24)}"])
    all_pass([f"SK: ORDER#2026-12-04#{d.rng.choice('01')}{d.r(25, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')}",
              "SK: PROFILE#2026-12-04", "sort key: USER#1234#SETTINGS", f"partition key: TENANT#{uuid4(d.rng)}",
              "cache key: PAGE#home#en-US"])


def test_a_short_random_token_under_a_push_address_name_is_still_refused():
    """sec51 passed every value under a push address's name (``device_token``, ``FCM_TOKEN``, "APNs
    device token: X") as where a push goes, by the name alone: an IoT platform's device access
    token (``THINGSBOARD_DEVICE_TOKEN=<20 random>``, a credential the device signs in with) and
    Pushover's 30-character app token ("Pushover push token: X") went into history, where the
    gate before sec51 refused them. A push address has its platform's shape (FCM's and
    Huawei's long tokens, APNs' 64 hex, a UUID, ``ExponentPushToken[...]``); a short random
    token under such a name is judged as any token."""
    from secret_probe import ALNUM, HEX, Draw, all_pass, all_refused, uuid4

    d = Draw(5657)
    low36 = "abcdefghijklmnopqrstuvwxyz0123456789"
    all_refused([f"THINGSBOARD_DEVICE_TOKEN={d.r(20)}", f"Pushover push token: {d.r(30, low36)}",
                 f'{{"device_token": "{d.r(24)}"}}', f"gcm_token = {d.r(32, HEX)}"])
    fcm = f"{d.r(22, ALNUM + '-_')}:APA91b{d.r(134, ALNUM + '-_')}"
    all_pass([f"FCM registration token: {fcm}", f'{{"fcm_token": "{fcm}"}}', f"APNs device token {d.r(64, HEX)}",
              f"device_token: {d.r(64, HEX)}", f"push token: ExponentPushToken[{d.r(22)}]",
              f"OneSignal push token: {uuid4(d.rng)}", "DEVICE_TOKEN=<your device token>",
              "device_token: null (the app has not registered yet)"])


def test_every_tailscale_public_key_passes_by_every_rule_that_names_them():
    """sec51 wrote Tailscale's public key names in three rules (a value's prefix, a field's name,
    a word before a value), each with its own list: the tailnet lock's ``nlpub:`` was in one of
    them, so "the signing key is nlpub:<hex>" (``tailscale lock status``'s public key) was refused
    where ``nodekey:<hex>`` passed. One list now, read by the three; a private key still refused."""
    from secret_probe import HEX, Draw, all_pass, all_refused

    d = Draw(5658)
    for name in ("nodekey", "mkey", "discokey", "nlpub"):
        value = f"{name}:{d.r(64, HEX)}"
        all_pass([f"the signing key is {value} (public, share it)", f"key: {value}", f"{name}: {value}",
                  f"Trusted signing keys: {value} 1 (self)"])
    all_refused([f"the node's private key is privkey:{d.r(64, HEX)}", f"key: nlpriv:{d.r(64, HEX)}"])


def test_an_item_named_after_a_password_manager_of_two_words_passes():
    """sec51 passed an item's name after a password manager's name ("1Password: \\"AWS prod\\"",
    "KeePass: ops.kdbx") for the managers named in one word; "Proton Pass: AWS-prod-db" and
    "Google Password Manager: AWS-prod-db" (where a secret lives: what a memory should hold
    instead of it) were still refused as a password. One list of the managers' names now, of any
    number of words; a password given after the manager's name is still refused."""
    from secret_probe import Draw, all_pass, all_refused, person

    d = Draw(5659)
    all_pass(["Proton Pass: AWS-prod-db", "The staging login is saved in Proton Pass: AWS-prod-db",
              "Google Password Manager: AWS-prod-db", "1Password: AWS-prod-db"])
    all_refused([f"Proton Pass password: {person(d.rng)}", f"Google Password Manager master password: {d.r(14)}!",
                 f"Proton Pass: {d.r(16)}#"])
