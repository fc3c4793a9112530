"""Review of sync51 and attack49: what a sync's streamed reads and the first authors by arrival
still got wrong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from conftest import PEER_EMAIL, cli, git, person_and_peer


def _trusted(root) -> dict[str, bool]:
    listed = json.loads(cli("list", "--vault", str(root), "--json").stdout)
    return {m["key"]: m["trusted"] for m in listed}


def test_a_peers_copy_descending_from_the_persons_commit_stays_the_persons_after_the_logs_are_cut(tmp_path):
    """`git gc` expires ref log entries older than 90 days: each log then begins at an entry
    whose old value is what the ref held before, and every commit it reaches counts as arrived
    at any time (-inf). A peer's commit that copied the person's text and descends from the
    person's commit was then taken as arrived before it, and a rebuilt `.vault-mem/` gave the
    person's pinned memory to the peer. A commit whose arrival a cut log hides is asked, as one
    no log names is, whether it descends from the person's (then it came after)."""
    mine, peer = person_and_peer(tmp_path)
    r = cli("--vault", str(mine), "remember", "deploy-rule", "--type", "fact", "--pinned",
            "-d", "Deploys need two reviewers", "--body", "Never deploy on a Friday.")
    assert r.returncode == 0, r.stderr
    assert cli("sync", "--vault", str(mine)).returncode == 0
    time.sleep(1.02 - time.time() % 1)
    git(peer, "pull", "-q", "origin", "main")
    (peer / "notes").mkdir(exist_ok=True)
    shutil.copy(peer / "facts" / "deploy-rule.md", peer / "notes" / "copy-rule.md")
    env = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
           "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", "copy"], ["push", "-q", "origin", "main"]):
        subprocess.run(["git", *args], cwd=peer, check=True, env={**os.environ, **env}, capture_output=True)
    assert cli("sync", "--vault", str(mine)).returncode == 0
    assert _trusted(mine)["deploy-rule"] is True
    # the logs cut as a gc cuts them: every entry before now goes, a later one stays
    time.sleep(1.02 - time.time() % 1)
    cut = int(time.time())
    time.sleep(1.02)
    r = cli("--vault", str(mine), "remember", "later", "--type", "fact", "-d", "A later memory",
            "--body", "Written after the cut.")
    assert r.returncode == 0, r.stderr
    git(mine, "reflog", "expire", f"--expire=@{cut}", "--expire-unreachable=never", "--all")
    log = (mine / ".git" / "logs" / "HEAD").read_text().splitlines()
    assert len(log) == 1 and not set(log[0].split()[0]) <= {"0"}  # a cut log, as after a gc
    shutil.rmtree(mine / ".vault-mem")
    assert _trusted(mine)["deploy-rule"] is True
    assert _trusted(mine)["copy-rule"] is False
