"""A peer's force-push of another history (issue 23, trust24): every clone's sync stops until the
person acts. What the person is told must be enough to act on in one step wherever they look
(`vault-mem sync`, `vault-mem doctor`, the daemon's log), and nothing of theirs may be lost
meanwhile: memories written while sync is stopped reach the remote once it is put back."""

from __future__ import annotations

import os
import shlex
import subprocess

from conftest import cli, git, person_and_peer


def _peer_replaces_the_history(peer) -> None:
    """The peer pushes an orphan branch over `main` (`git push --force`)."""
    git(peer, "checkout", "-q", "--orphan", "other")
    git(peer, "rm", "-rq", "--cached", ".")
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "takeover.md").write_text("---\ndescription: the peer's vault now\n---\nnothing else\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@example.com"}
    for args in (["add", "facts/takeover.md"], ["commit", "-q", "--no-verify", "-m", "start over"],
                 ["push", "-q", "--force", "origin", "other:main"]):
        subprocess.run(["git", *args], cwd=peer, check=True, capture_output=True, env=env)


def _command_in(text: str) -> list[str]:
    """The `git push --force-with-lease=...` command a message gives (between backquotes)."""
    return shlex.split(next(part for part in text.split("`") if part.startswith("git push --force-with-lease=")))


def test_doctor_names_a_replaced_history_with_the_command_that_puts_this_vaults_back(tmp_path):
    """Before: `vault-mem doctor` said nothing of a remote whose history a peer replaced (the vault
    was "healthy"), so a person whose daemon syncs in the background learned of it only from the
    daemon's log, while nothing written here reached any other clone. Doctor now names it, from
    what the last fetch left (no network), with the same one command sync gives; that command
    puts back this vault's history, with the memory written while sync was stopped, and doctor
    then says nothing of it."""
    mine, peer = person_and_peer(tmp_path)
    _peer_replaces_the_history(peer)
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 1 and "shares no history" in r.stderr, r.stderr
    r = cli("--vault", str(mine), "remember", "release-train", "-d", "We release every second Tuesday",
            "-t", "decision")
    assert r.returncode == 0, r.stderr  # written while sync is stopped

    told = cli("--vault", str(mine), "doctor")
    assert "shares no history" in told.stdout + told.stderr, told.stdout + told.stderr
    subprocess.run(_command_in(told.stdout + told.stderr), cwd=mine, check=True, capture_output=True)
    again = cli("--vault", str(mine), "sync")
    assert again.returncode == 0, again.stderr
    remote = tmp_path / "remote.git"
    assert "release-train" in git(remote, "ls-tree", "-r", "--name-only", "main")
    told = cli("--vault", str(mine), "doctor")
    assert "shares no history" not in told.stdout + told.stderr


def test_the_daemons_log_gives_the_same_one_step(tmp_path, caplog):
    """The daemon's sync thread logs the failure once, with the command (the person who reads
    its log acts on it without running anything else)."""
    import logging
    import threading

    from vault_mem.sync.remote import run_schedule

    from conftest import wait_for

    mine, peer = person_and_peer(tmp_path)
    with open(mine / "vault.toml", "a") as fh:  # the person's own setting (approved by the pre-commit hook)
        fh.write("\n[sync]\ninterval_s = 1\n")
    git(mine, "commit", "-q", "-am", "sync every second")
    _peer_replaces_the_history(peer)
    caplog.set_level(logging.WARNING, logger="vault_mem")
    stop = threading.Event()
    thread = threading.Thread(target=run_schedule, args=(mine, stop), kwargs={"tick_s": 0.2}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: "shares no history" in caplog.text, timeout=60, what="the daemon's sync failing")
    finally:
        stop.set()
        thread.join(30)
    assert _command_in(caplog.text)[0] == "git"


def test_every_command_says_sync_stopped_until_a_sync_works_again(tmp_path):
    """Before: once a sync failed on a replaced history, no other command said so: a person whose
    daemon syncs in the background (and the agent they work with) heard nothing while nothing
    written here reached any clone. Every command now names it, with where to find the one step
    (doctor), without itself naming a command that rewrites the remote (an agent reads it too);
    the note goes once a sync works again."""
    mine, peer = person_and_peer(tmp_path)
    _peer_replaces_the_history(peer)
    assert cli("--vault", str(mine), "sync").returncode == 1
    for args in (("list",), ("recall", "which editor do I use")):
        r = cli("--vault", str(mine), *args)
        assert r.returncode == 0, r.stderr
        assert "sync has stopped" in r.stderr and "vault-mem doctor" in r.stderr, (args, r.stderr)
        assert "--force" not in r.stderr
    told = cli("--vault", str(mine), "doctor")
    subprocess.run(_command_in(told.stdout + told.stderr), cwd=mine, check=True, capture_output=True)
    assert cli("--vault", str(mine), "sync").returncode == 0
    r = cli("--vault", str(mine), "list")
    assert "sync has stopped" not in r.stderr, r.stderr
