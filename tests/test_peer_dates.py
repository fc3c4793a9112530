"""A peer's far-future date (issue 23, trust24): the `updated:` and `created:` lines of a memory are
the writer's text, and the date they give ordered INDEX.md's sections (and so what the budget
keeps and the session context carries), dated recall's hits and `get`, and decided staleness.
A peer's `updated: 2099-12-31`, through a real bare remote, bought its memory the top of its
section for 73 years (every memory the person's agent writes from now on below it), never a
"may be outdated", and a date the agent reads as newer than anything the person says. A date is
now taken as no later than the day the file was written on this machine (its modification time:
this machine's clock; the sidecar's one home for a memory's date, ``index/sidecar``)."""

from __future__ import annotations

import datetime as dt
import json
import os
import time

from conftest import PEER_EMAIL, agent_hook, at_terminal, cli, git, person_and_peer, push_as_peer

FAR = "2099-12-31"


def _peer_writes(peer, rel: str, text: str) -> None:
    path = peer / rel
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    push_as_peer(peer, f"add {rel}")


def _pulled_and_dated(mine, rel: str, days_ago: int) -> None:
    """The person's plain `git pull`; the file the peer's commit brought written here ``days_ago``
    days ago (what its modification time says when the pull was that long ago). The pull runs
    without the git hooks, whose post-merge would read the file before its time is set."""
    git(mine, "-c", "core.hooksPath=/dev/null", "pull", "-q", "--ff-only", "origin", "main")
    when = time.time() - days_ago * 86400
    os.utime(mine / rel, (when, when))


def _index_lines(text: str, key: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"- {key} ")]


def test_a_peers_far_future_date_buys_no_place_above_the_persons_later_memories(tmp_path):
    """An approved teammate's memory (so in the session context) dated 2099 by its `updated:`
    line, pulled yesterday: before, it led its INDEX.md section and the session context above the
    fact the person's agent wrote today (and every one it writes until 2099), and recall, `get`
    and `list` dated it 2099 with a negative age. Its date is now the day it arrived here."""
    mine, peer = person_and_peer(tmp_path)
    assert at_terminal("trust", "--vault", str(mine), "--author", PEER_EMAIL).returncode == 0
    rel = "facts/deploy-target.md"
    _peer_writes(peer, rel, f"---\ndescription: Deploys go to the blue cluster\ncreated: {FAR}\n"
                            f"updated: {FAR}\n---\nUse the blue cluster for every deploy.\n")
    _pulled_and_dated(mine, rel, 1)
    r = cli("--vault", str(mine), "remember", "ci-runner", "-d", "CI runs on the green runners",
            "--body", "The green runners took over this morning.")
    assert r.returncode == 0, r.stderr
    yesterday, today = (dt.date.today() - dt.timedelta(days=1)).isoformat(), dt.date.today().isoformat()

    for text in ((mine / "INDEX.md").read_text(), agent_hook(mine, "session-start")):
        lines = [line for line in text.splitlines() if line.startswith("- ")]
        keys = [line.split()[1] for line in lines]
        assert keys.index("ci-runner") < keys.index("deploy-target"), lines
        assert FAR not in text and f"- deploy-target ({yesterday}" in text, lines
    hit = next(h for h in json.loads(cli("--vault", str(mine), "recall", "--json", "which cluster do deploys go to").stdout)["hits"]
               if h["key"] == "deploy-target")
    assert hit["date"] == yesterday and hit["age_days"] == 1, hit
    got = json.loads(cli("--vault", str(mine), "get", "--json", "deploy-target").stdout)
    assert got["age_days"] == 1, got
    listed = {m["key"]: m["date"] for m in json.loads(cli("--vault", str(mine), "list", "--json").stdout)}
    assert listed["deploy-target"] == yesterday and listed["ci-runner"] == today, listed


def test_a_peers_far_future_date_never_escapes_may_be_outdated(tmp_path):
    """A peer's fact dated 2099 that arrived here three years ago: before, its age was negative
    for 73 more years, so recall, `get` and `review` never said "may be outdated" of it (a stale
    fact of a peer's read as fresh beside the person's own, which are). Its age now counts from
    its arrival, as a fact of the person's dated that day would."""
    mine, peer = person_and_peer(tmp_path)
    rel = "facts/db-host.md"
    _peer_writes(peer, rel, f"---\ndescription: The database host is db-old.internal\nupdated: {FAR}\n---\n")
    _pulled_and_dated(mine, rel, 3 * 365)
    hit = next(h for h in json.loads(cli("--vault", str(mine), "recall", "--json", "what is the database host").stdout)["hits"]
               if h["key"] == "db-host")
    assert "stale" in hit["flags"] and hit["age_days"] >= 3 * 365 - 1, hit
    got = json.loads(cli("--vault", str(mine), "get", "--json", "db-host").stdout)
    assert "stale" in got["flags"], got
    items = json.loads(cli("--vault", str(mine), "review", "--json").stdout)
    items = items["items"] if isinstance(items, dict) else items
    assert any(i.get("key") == "db-host" and "stale" in str(i) for i in items), items


def test_a_peers_date_kept_by_the_persons_edit_gives_the_persons_memory_no_lasting_lead(tmp_path):
    """The peer changed only the `updated:` line of the person's fact to 2099 (bookkeeping: the
    person's later edit of the body makes the memory theirs again, the date kept), pulled
    yesterday: before, that fact of the person's stood above everything the person's agent
    writes until 2099 in the session context. Its date is now when its file was written here."""
    mine, peer = person_and_peer(tmp_path)
    r = cli("--vault", str(mine), "remember", "backup-plan", "-d", "Backups run nightly to the NAS")
    assert r.returncode == 0, r.stderr
    assert cli("sync", "--vault", str(mine)).returncode == 0
    git(peer, "pull", "-q", "origin", "main")
    rel = "facts/backup-plan.md"
    text = (peer / rel).read_text()
    today = dt.date.today().isoformat()
    (peer / rel).write_text(text.replace(f"updated: {today}", f"updated: {FAR}"))
    push_as_peer(peer, "dates")
    _pulled_and_dated(mine, rel, 1)
    path = mine / rel
    path.write_text(path.read_text().replace("Backups run nightly to the NAS", "Backups run nightly to the NAS at 2am"))
    when = time.time() - 86400  # the person's edit, yesterday too
    os.utime(path, (when, when))
    git(mine, "commit", "-q", "-am", "backup time")
    r = cli("--vault", str(mine), "remember", "ci-runner", "-d", "CI runs on the green runners")
    assert r.returncode == 0, r.stderr
    context = agent_hook(mine, "session-start")
    assert _index_lines(context, "backup-plan"), context  # the person's again
    keys = [line.split()[1] for line in context.splitlines() if line.startswith("- ")]
    assert keys.index("ci-runner") < keys.index("backup-plan"), context
    assert FAR not in context
