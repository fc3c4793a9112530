"""The origins scan (vault/authors.Origins) and the authors' refresh (vault/authors.refresh, over
store/history.last_authors) hold a chunk of commits in memory, whatever the number a peer's push
brings, and give the same answers as the reads that held them all.

Before: ``Origins._scan`` read ``git log --raw`` of every new commit whole and kept a record per
commit (~3.2 KB each: 334 MB for a push of 100,000 commits). Now it reads git's output as it
comes, ``SCAN_CHUNK`` commits at a time, and keeps each new text's givers in a working file
(index/origins_scan.py). The answers are checked against the whole-history algorithm (the one
before, written out here as the reference) on a real history crossing many chunk boundaries, git's
output read 7 bytes at a time (every record, and its separator, cut somewhere):
texts given both by the person and by a peer (the peer's arriving after the person's commit, and
before it, and through a tag no log names), merges, a text given again and again.

Before also: the sync listed every incoming commit with its parents (``git rev-list``
whole, kept for the sync: ~560 B per commit) to read their sizes. And the authors' refresh after a sync read ``git log --raw`` of the range whole and kept
every commit per path (``touched``): ~2.3 KB per commit. It now streams, keeps per path what the
tip holds, and at most one commit not made here per path."""

from __future__ import annotations

import math
import os
import subprocess
import time
import tracemalloc

import pytest
from conftest import PEER_EMAIL, cli, git, new_vault, person_and_peer, published_copy, push_as_peer

from vault_mem.index import authors as rows
from vault_mem.index import origins_scan
from vault_mem.store import git as store_git
from vault_mem.store import history
from vault_mem.store.arrivals import Arrivals
from vault_mem.vault import authors
from vault_mem.vault.core import Vault

PAST, FUTURE = int(time.time()) - 3600, int(time.time()) + 3600


def _reference(ws, ids, tips: list[str], seen: list[str]) -> dict[str, tuple[str, str]]:
    """The scan before this change, whole-history in memory, as it was (origins empty before)."""
    repo = ws.repo
    found = list(history.introductions(repo, tips, seen, ws.prefix))
    givers: dict[str, list[tuple[str, str, int]]] = {}
    for commit, email, _name, when, _parents, blobs in found:
        for blob in dict.fromkeys(blobs):
            givers.setdefault(blob, []).append((commit, email, when))
    parents = {commit: ps for commit, _e, _n, _w, ps, _b in found}
    firsts: dict[str, tuple[str, str]] = {}
    arrived: dict[str, float] | None = None
    checks = 0
    for blob, commits in givers.items():
        firsts[blob] = commits[0][:2]
        ours = [c for c in commits if c[0] in ids.local]
        theirs = [c for c in commits if c[0] not in ids.local]
        if not ours or not theirs:
            continue
        mine = min(ours, key=lambda c: c[2])
        arrived = Arrivals(repo).times(parents) if arrived is None else arrived
        kept = True
        for peer, _email, _when in theirs:
            if arrived.get(peer, -math.inf) > -math.inf:
                kept = arrived[peer] > mine[2]
                if not kept:
                    checks += 1
                    kept = checks <= authors._ANCESTRY_CHECKS and history.is_ancestor(repo, mine[0], peer)
            else:
                checks += 1
                kept = checks <= authors._ANCESTRY_CHECKS and history.is_ancestor(repo, mine[0], peer)
            if not kept:
                break
        firsts[blob] = mine[:2] if kept else theirs[0][:2]
    return firsts


def _commit_as_person(mine, rel: str, text: str, when: int) -> str:
    path = mine / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(mine, "add", rel)
    env = {**os.environ, "GIT_COMMITTER_DATE": f"{when} +0000", "GIT_AUTHOR_DATE": f"{when} +0000"}
    subprocess.run(["git", "commit", "-q", "-m", f"mine {rel}"], cwd=mine, check=True, env=env, capture_output=True)
    return git(mine, "rev-parse", "HEAD").strip()


def _peer_writes(peer, rel: str, text: str) -> None:
    path = peer / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    push_as_peer(peer, f"peer {rel}")


def _memory(description: str, body: str = "") -> str:
    return f"---\ndescription: {description}\n---\n{body}"


@pytest.fixture
def shared_history(tmp_path):
    """The person's vault and a peer's pushes, fetched by plain git (no scan between): texts both
    gave, each way round; the peer's churn of one file between two texts; a peer's merge; a
    text of the peer's only a tag names (no log: when it arrived is not known). Made once per
    worker (~30 pushes and fetches, the person's commits through the hooks: ~2 s of CPU) and
    copied for each test (:func:`conftest.published_copy`: the repositories as they are, reflogs
    and the record of commits made here included; the approval and signed records redone)."""
    published_copy(tmp_path, "shared-history", _make_shared_history, vault="mine").close()
    return tmp_path / "mine"


def _make_shared_history(tmp_path):
    """What :func:`shared_history` gives, made: the person's vault, open."""
    mine, peer = person_and_peer(tmp_path)
    # the person's text first (dated an hour back), the peer's copy fetched after: the person's
    both = _memory("Deploys go out on Tuesdays")
    _commit_as_person(mine, "facts/deploys.md", both, PAST)
    for i in range(12):
        _peer_writes(peer, "facts/churn.md", _memory(f"Churn {i % 2}", "x\n"))
        _peer_writes(peer, f"facts/peer-{i}.md", _memory(f"Peer fact {i}"))
    _peer_writes(peer, "facts/copied.md", both)
    git(mine, "fetch", "-q", "origin")
    # the peer's text fetched first, the person's copy committed after (dated an hour on): the peer's
    theirs = _memory("The staging database is pg-7")
    _peer_writes(peer, "facts/staging.md", theirs)
    git(mine, "fetch", "-q", "origin")
    _commit_as_person(mine, "facts/staging-copy.md", theirs, FUTURE)
    # a peer's merge of a side line
    git(peer, "checkout", "-q", "-b", "side")
    _peer_writes_side = _memory("Side fact of the peer")
    (peer / "facts" / "side.md").write_text(_peer_writes_side)
    git(peer, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "side"], cwd=peer, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_EMAIL": PEER_EMAIL, "GIT_AUTHOR_NAME": "Mallory"})
    git(peer, "checkout", "-q", "main")
    _peer_writes(peer, "facts/main-only.md", _memory("Main line fact"))
    git(peer, "merge", "-q", "--no-edit", "side")
    git(peer, "push", "-q", "origin", "main")
    # a text of the peer's that only a tag names (tags keep no log), copied by the person, dated back
    tagged = _memory("The VPN host is vpn-3")
    git(peer, "checkout", "-q", "-b", "tagged")
    _peer_writes_tag = peer / "facts" / "vpn.md"
    _peer_writes_tag.write_text(tagged)
    git(peer, "add", "-A")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "vpn"], cwd=peer, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_EMAIL": PEER_EMAIL, "GIT_AUTHOR_NAME": "Mallory"})
    git(peer, "tag", "vpn")
    git(peer, "push", "-q", "origin", "vpn")
    git(peer, "checkout", "-q", "main")
    git(mine, "fetch", "-q", "origin", "--tags")
    _commit_as_person(mine, "facts/vpn-copy.md", tagged, PAST)
    git(mine, "merge", "-q", "--no-edit", "origin/main")
    return Vault(mine)


def _scan_with(vault, chunk: int, seen: list[str], monkeypatch) -> tuple[dict, dict]:
    """The origins table after a scan from ``seen`` (the table emptied first) with ``chunk``."""
    db = vault.sidecar.db
    with db.write():
        db.execute("DELETE FROM origins")
        db.set_meta(rows.ORIGINS_STAMP, "")
        db.set_meta(rows.ORIGINS_TIPS, __import__("json").dumps(seen))
    monkeypatch.setattr(authors, "SCAN_CHUNK", chunk, raising=False)
    ids = authors.identities(vault.ws)
    authors.Origins(vault.ws, vault.sidecar, ids)
    table = {r[0]: (r[1], r[2]) for r in db.execute("SELECT blob, commit_id, email FROM origins")}
    who = {path: (a.email, a.trusted) for path, a in authors.peer_memories(vault.ws, vault.sidecar, ids).items()}
    return table, who


def test_the_chunked_scan_gives_the_whole_history_scans_answers(shared_history, monkeypatch):
    """Every chunk size (1: a boundary between every two commits) gives the reference's origins,
    from an empty table and from a scan that saw part of the history already; and the same
    peers' memories. The cases of the fixture each decide a text: the person's text copied by
    the peer stays the person's, the peer's copied by the person is the peer's, and so is the
    one only a tag names."""
    vault = Vault(shared_history)
    try:
        ids = authors.identities(vault.ws)
        tips = history.known_tips(vault.ws.repo)
        middle = git(shared_history, "rev-parse", "origin/main~6").strip()
        for seen in ([], [middle]):
            expected = _reference(vault.ws, ids, tips, seen)
            assert len(expected) > 15
            answers = {}
            # spill: the working set moved into its file at the first rows, or kept in memory
            for chunk, piece, spill in ((1, 7, 1), (2, 64, 10**9), (3, 7, 1), (7, 1 << 16, 10**9), (10**9, 1 << 16, 1)):
                monkeypatch.setattr(store_git, "STREAM_PIECE", piece, raising=False)
                monkeypatch.setattr(origins_scan, "SPILL_ROWS", spill)
                table, who = _scan_with(vault, chunk, seen, monkeypatch)
                assert table == expected, (chunk, seen)
                answers[chunk] = who
            assert all(who == answers[1] for who in answers.values())
        table, _who = _scan_with(vault, 2, [], monkeypatch)
        blob = {rel: git(shared_history, "rev-parse", f"HEAD:{rel}").strip()
                for rel in ("facts/deploys.md", "facts/staging-copy.md", "facts/vpn-copy.md")}
        assert table[blob["facts/deploys.md"]][1] != PEER_EMAIL
        assert table[blob["facts/staging-copy.md"]][1] == PEER_EMAIL
        assert table[blob["facts/vpn-copy.md"]][1] == PEER_EMAIL
    finally:
        vault.close()


def _churn(root, n: int, ref: bytes = b"refs/heads/peer") -> None:
    """``n`` commits of a peer on ``ref`` (from main), each a new text of ``facts/churn.md``."""
    parts = [b"reset %s\nfrom refs/heads/main^0\n" % ref]
    for i in range(n):
        body = b"---\ndescription: Team churn %d\n---\nx\n" % i
        parts.append(b"commit %s\nauthor Peer <peer@example.com> 1767225600 +0000\n" % ref +
                     b"committer Peer <peer@example.com> 1767225600 +0000\ndata 5\nchurn\n"
                     b"M 100644 inline facts/churn.md\ndata %d\n%s\n" % (len(body), body))
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=root, input=b"".join(parts), check=True)


def _peak_of_scan(root, n: int, monkeypatch) -> int:
    git(root, "branch", "-q", "-f", "peer", "main")
    _churn(root, n)
    vault = Vault(root)
    try:
        db = vault.sidecar.db
        with db.write():
            db.execute("DELETE FROM origins")
            db.set_meta(rows.ORIGINS_STAMP, "")
            db.set_meta(rows.ORIGINS_TIPS, "[]")
        monkeypatch.setattr(authors, "SCAN_CHUNK", 200, raising=False)
        ids = authors.identities(vault.ws)
        tracemalloc.start()
        try:
            authors.Origins(vault.ws, vault.sidecar, ids)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert db.execute("SELECT count(*) FROM origins").fetchone()[0] >= n  # every text scanned
        return peak
    finally:
        vault.close()


def test_the_scans_memory_does_not_grow_with_the_number_of_commits(tmp_path, monkeypatch):
    """A peer's 8,000 commits cost the scan no more of Python's memory than 2,000 (traced by
    tracemalloc, chunks of 200): before, every commit added ~3.2 KB (~19 MB more here)."""
    root = tmp_path / "vault"
    new_vault(root).close()
    small = _peak_of_scan(root, 2000, monkeypatch)
    large = _peak_of_scan(root, 8000, monkeypatch)
    assert large < small * 1.25 + 512 * 1024, (small, large)
    assert large < 4 * 1024 * 1024, large


def _refreshed(vault, monkeypatch, piece: int) -> tuple:
    """The authors' rows, lineage, moves and deletions after a refresh of all of history."""
    monkeypatch.setattr(store_git, "STREAM_PIECE", piece, raising=False)
    db = vault.sidecar.db
    with db.write():
        db.execute("DELETE FROM authors")
        db.set_meta(rows.HEAD_META, "")
    authors.refresh(vault.ws, vault.sidecar)
    return (rows.all_authors(db), rows.lineage_paths(db), rows.moved_from(db), rows.deleted_here(db))


def test_the_authors_refresh_read_in_pieces_gives_the_same_rows(shared_history, monkeypatch):
    """git's output cut every 7 bytes gives the rows, lineage, moves and deletions of one read
    whole; the peer's files are the peer's."""
    vault = Vault(shared_history)
    try:
        whole = _refreshed(vault, monkeypatch, 1 << 30)
        assert whole[0]["facts/churn.md"][1] == PEER_EMAIL and whole[0]["facts/deploys.md"][1] != PEER_EMAIL
        assert _refreshed(vault, monkeypatch, 7) == whole
    finally:
        vault.close()


def _peak_of_refresh(root, n: int) -> int:
    """Python's peak while the authors are brought up to a HEAD ``n`` peer commits on."""
    vault = Vault(root)
    try:
        authors.refresh(vault.ws, vault.sidecar)
        _churn(root, n, b"refs/heads/main")
        git(root, "reset", "-q", "--hard")
        tracemalloc.start()
        try:
            authors.refresh(vault.ws, vault.sidecar)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert rows.authors_of(vault.sidecar.db, ["facts/churn.md"])["facts/churn.md"][1] == "peer@example.com"
        return peak
    finally:
        vault.close()


def test_the_authors_refresh_memory_does_not_grow_with_the_number_of_commits(tmp_path):
    """The refresh over 8,000 peer commits to one memory costs no more of Python's memory than
    over 2,000: before, ~2.3 KB a commit (git's output whole, every commit per path)."""
    small_root, large_root = tmp_path / "small", tmp_path / "large"
    new_vault(small_root).close()
    new_vault(large_root).close()
    small = _peak_of_refresh(small_root, 2000)
    large = _peak_of_refresh(large_root, 8000)
    assert large < small * 1.25 + 512 * 1024, (small, large)
    assert large < 4 * 1024 * 1024, large


def _peak_of_sync(tmp_path, n: int) -> int:
    """Python's peak while the person's vault syncs a peer's push of ``n`` commits to one memory."""
    mine, peer = person_and_peer(tmp_path)
    _churn(peer, n, b"refs/heads/main")
    git(peer, "push", "-q", "origin", "main")
    tracemalloc.start()
    try:
        synced = cli("sync", "--vault", str(mine))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert synced.returncode == 0, synced.stderr
    # the peer's commits, then INDEX.md committed alone (they were made without the hooks: syncidx)
    assert git(mine, "rev-parse", "HEAD~1") == git(peer, "rev-parse", "HEAD")
    return peak


def test_the_syncs_memory_does_not_grow_with_the_number_of_commits(tmp_path):
    """A sync of a peer's 8,000 commits costs no more of Python's memory than one of 2,000."""
    small = _peak_of_sync(tmp_path / "small", 2000)
    large = _peak_of_sync(tmp_path / "large", 8000)
    assert large < small * 1.25 + 512 * 1024, (small, large)


def _wide_then_narrow(peer, files: int) -> None:
    """The peer's commit adding ``files`` memory files of one text, the next taking them out (no
    net change: sync takes both), then a memory of the peer's own, pushed."""
    wide = _memory("One tiny text, many names")
    for i in range(files):
        (peer / "facts" / f"wide-{i}.md").parent.mkdir(parents=True, exist_ok=True)
        (peer / "facts" / f"wide-{i}.md").write_text(wide)
    push_as_peer(peer, "wide")
    for i in range(files):
        (peer / "facts" / f"wide-{i}.md").unlink()
    push_as_peer(peer, "narrow again")
    _peer_writes(peer, "facts/peer-note.md", _memory("Release builds are signed on the build-7 host"))


def test_a_wide_commit_in_history_leaves_later_texts_origins_known(tmp_path, monkeypatch):
    """Before: the origins scan gave up at a commit listing more than ``LISTED_CHANGES`` changes
    (a peer's commit of 60,000 files of one tiny text, taken out in the next: sync sees no net
    change; a person's import of a large export), recorded nothing and started again from the
    same place at every operation: every later text's first giver stayed unknown, so a peer's
    memory copied into a commit made here passed as the person's, and each operation ran the
    scan again. Now a wide commit is read in parts (the bound lowered to 300 here, the commit
    adding 700 files): the copy is the peer's, and the scan's state is recorded (the next
    operation scans nothing)."""
    from vault_mem.sync.remote import sync

    monkeypatch.setattr(history, "LISTED_CHANGES", 300)
    monkeypatch.setattr(store_git, "STREAM_PIECE", 4096, raising=False)  # pieces of a few dozen changes
    mine, peer = person_and_peer(tmp_path)
    _wide_then_narrow(peer, 700)
    vault = Vault(mine)
    try:
        sync(vault)
    finally:
        vault.close()
    assert (mine / "facts" / "peer-note.md").exists() and not (mine / "facts" / "wide-0.md").exists()
    # the person copies the peer's memory into one of their own and commits it (git's hooks
    # skipped: they start the installed vault-mem, whose bound is not this test's)
    (mine / "facts" / "my-note.md").write_bytes((mine / "facts" / "peer-note.md").read_bytes())
    git(mine, "add", "facts/my-note.md")
    git(mine, "commit", "-q", "--no-verify", "-m", "my note")
    vault = Vault(mine)
    try:
        vault.reconcile()  # the index takes the new file (its commit ran no hook)
        ids = authors.identities(vault.ws)
        peers = authors.peer_memories(vault.ws, vault.sidecar, ids)
        assert "facts/my-note.md" in peers and peers["facts/my-note.md"].email == PEER_EMAIL, peers
        # the scan's state is recorded: the next operation starts no scan
        assert rows.origins_state(vault.sidecar.db, history.refs_stamp(vault.ws.repo)) is None
        note = git(mine, "rev-parse", "HEAD:facts/peer-note.md").strip()
        assert rows.origins_of(vault.sidecar.db, [note])[note][1] == PEER_EMAIL
        # the parts of the wide commits, put together, are the listing read whole, under any
        # bound and any cut of git's output
        whole = _introduced(vault, monkeypatch, 10**9, 1 << 16)
        assert len(whole["commits"]) == len(set(whole["commits"])) and max(map(len, whole["blobs"].values())) >= 700
        for bound, piece in ((300, 4096), (1, 7), (5, 64)):
            parts = _introduced(vault, monkeypatch, bound, piece)
            assert parts["blobs"] == whole["blobs"], (bound, piece)
            assert list(dict.fromkeys(parts["commits"])) == whole["commits"]
            assert len(parts["commits"]) > len(whole["commits"]), (bound, piece)  # the wide ones came in parts
    finally:
        vault.close()


def _introduced(vault, monkeypatch, bound: int, piece: int) -> dict:
    """``introductions`` of all history with this bound and git's output cut in these pieces:
    the commits in the order given (once per part) and each commit's fields and blobs joined."""
    monkeypatch.setattr(history, "LISTED_CHANGES", bound)
    monkeypatch.setattr(store_git, "STREAM_PIECE", piece, raising=False)
    commits, blobs = [], {}
    for commit, email, name, when, parents, given in history.introductions(
            vault.ws.repo, history.known_tips(vault.ws.repo), [], vault.ws.prefix):
        commits.append(commit)
        blobs.setdefault((commit, email, name, when, tuple(parents)), []).extend(given)
    return {"commits": commits, "blobs": blobs}
