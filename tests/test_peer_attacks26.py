"""The twenty-sixth attack run (issue 23, atk26, git and sync side): a peer with push rights to
the shared bare remote pushes what git makes cheap to send and sync's checks of the net change
never see. A real bare remote, the peer's clone committing with plain git (``git fast-import``
where a history of thousands of commits is the point), the person's real ``vault-mem sync`` and
a fresh process reading the vault as an agent's session start does. Each attack's test fails on
the code before its fix; the held ones say so.

What each tries:

* many versions of one path, each under the file size limit (1,000 commits of the person's
  pinned memory, each a 40 KB text one line apart: a pack of a few hundred KB as deltas), then
  the person's own edit of that memory: the authors' rule (whose lines stand) read every version
  since the peer's change at once, 40 MB; now at most ``TEXTS_READ_BYTES`` (8 MB), and no version
  over the vault's file size limit (a 16 MB version put back in the next commit: left out too);
* a merge of the peer's branch with 60 root commits sharing one tree of 1,000 memory files (no
  net change, so sync takes it): the listing of what changed since a kept judgement
  (``history.changes_of``, asked by a warm read across the sync) listed the merge against each
  parent, held whole; by hand, 20,000 roots in a vault of 200 memories took one recall 64 s and
  1.9 GB. Now streamed and given up past ``LISTED_CHANGES`` (the whole judgement is made);
* an octopus merge of 2,000 root commits with empty trees (held: sync takes it and the next read
  costs what it did before).

Tried by hand and held (no test: each is ground an earlier run's test covers): ``.gitattributes``
and other files git reads under other spellings (case, HFS+'s ignored code points: every file
vault-mem does not read waits for approval, and names are folded as macOS and Windows fold them).
"""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import PEER_EMAIL, PINNED, cli, git, person_and_peer

PEER = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}

#: a fresh process's first reads of the vault as an agent's session makes them (the session-start
#: context, then a recall: who wrote what, the peers judged); prints the most memory Python held
#: for it at once, in MB (its own allocations: the RSS of a process moves with the allocator)
_FIRST_READ = """
import sys, tracemalloc
tracemalloc.start()
from vault_mem import Vault
vault = Vault(sys.argv[1])
vault.render_trusted_index()
vault.recall("which editor and which build port")
vault.close()
print(tracemalloc.get_traced_memory()[1] // 2**20)
"""

#: what the first read after the sync may take beyond the same read before it (MB): the texts
#: of history it reads are bounded (``vault/authors.py``'s :data:`TEXTS_READ_BYTES`, 8 MB)
_READ_ROOM_MB = 32


def _peer_git(peer, *args: str, input: bytes | None = None) -> None:
    subprocess.run(["git", *args], cwd=peer, env={**os.environ, **PEER}, check=True, capture_output=True,
                   input=input)


def _peak_mb(mine) -> int:
    proc = subprocess.run([sys.executable, "-c", _FIRST_READ, str(mine)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ""})
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.split()[-1])


def _padding(lines: int, seed: str = "") -> bytes:
    """``lines`` distinct short lines (what costs a set of lines the most per byte)."""
    return "".join(f"{seed}line {i} of padding\n" for i in range(lines)).encode()


def test_many_versions_each_under_the_size_limit_cost_the_first_read_a_bounded_amount(tmp_path):
    """Before: 1,000 commits of one path a peer pushed, each a 40 KB text one line apart from the
    last (a few hundred KB of pack as deltas; no file over any limit), then the person's own edit
    of it: the next read worked out whose lines stand from every version since the peer's
    change, all 40 MB held at once (Python's peak 79 MB against 13 before the sync; 2,000
    versions, 151 MB). Now one reading holds at most 8 MB of history's texts; past that the
    path's history counts as unreadable (the peer's, the safe side)."""
    mine, peer = person_and_peer(tmp_path)
    before = _peak_mb(mine)
    original = (peer / PINNED).read_bytes()
    body = original + _padding(1_800)
    stream = []
    for i in range(1_000):
        data = body + f"version {i}\n".encode()
        stream.append(b"commit refs/heads/main\ncommitter Mallory <%s> %d +0000\ndata 2\nv\n"
                      % (PEER_EMAIL.encode(), 1_790_000_000 + i))
        if i == 0:
            stream.append(b"from refs/heads/main^0\n")
        stream.append(b"M 100644 inline %s\ndata %d\n%s\n" % (PINNED.encode(), len(data), data))
    _peer_git(peer, "fast-import", "--quiet", input=b"".join(stream))
    _peer_git(peer, "push", "-q", "origin", "main")

    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0, r.stderr
    # the person's own edit over the peer's text: whose lines stand is read from its history
    (mine / PINNED).write_bytes((mine / PINNED).read_bytes().replace(b"version 999", b"version 1000"))
    git(mine, "commit", "-q", "-am", "my edit")
    after = _peak_mb(mine)
    assert after - before < _READ_ROOM_MB, (before, after)


def _octopus(peer, roots: int, files: int) -> str:
    """A merge the peer makes of its branch and ``roots`` root commits that share one tree of
    ``files`` memory files (``facts/note-N.md``, one blob), its tree the branch's own: no net
    change. Returns its id."""
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=peer, input="x\n", text=True, check=True,
                          capture_output=True).stdout.strip()
    rows = "".join(f"100644 blob {blob}\tnote-{i}.md\n" for i in range(files))
    folder = subprocess.run(["git", "mktree"], cwd=peer, input=rows, text=True, check=True,
                            capture_output=True).stdout.strip()
    stream = b"".join(b"commit refs/roots/r%d\ncommitter Mallory <%s> %d +0000\ndata 5\nroot\n"
                      b"deleteall\n%s\n" % (i, PEER_EMAIL.encode(), 1_790_000_000 + i,
                                             b"M 040000 %s facts\n" % folder.encode() if files else b"")
                      for i in range(roots))
    _peer_git(peer, "fast-import", "--quiet", input=stream)
    tree = git(peer, "write-tree").strip()
    parents = git(peer, "for-each-ref", "--format=%(objectname)", "refs/roots").split()
    return subprocess.run(["git", "commit-tree", tree, "-p", "HEAD", *(a for r in parents for a in ("-p", r)),
                           "-m", "merge"], cwd=peer, env={**os.environ, **PEER}, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_the_listing_of_what_a_peers_merge_changed_stops_at_its_bound(tmp_path):
    """Before: a peer's merge of its branch with 60 root commits sharing one tree of 1,000
    memory files (a commit of a few KB, no net change: sync took it) made the listing of the
    changes since a kept judgement (``history.changes_of``, which a warm read asks across the
    person's sync: the MCP server, the daemon) list the merge against each of its parents,
    60,000 changes, all held at once; at 20,000 roots in a vault of 200 memories, 4.6 million:
    64 s and 1.9 GB for one recall, measured by hand. Now it is read as git gives it and given
    up past :data:`~vault_mem.store.history.LISTED_CHANGES` (the caller then makes the whole
    judgement, which costs the vault's own files)."""
    from vault_mem.store import history
    from vault_mem.store.git import GitRepo

    mine, peer = person_and_peer(tmp_path)
    old = git(mine, "rev-parse", "HEAD").strip()
    merge = _octopus(peer, 60, 1_000)
    _peer_git(peer, "push", "-q", "origin", f"{merge}:refs/heads/main")
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0 and "received 61 commit(s)" in r.stdout, r.stdout + r.stderr
    repo = GitRepo(mine)
    try:
        history.changes_of(repo, [f"{old}...{merge}"], "")
    except history.WideCommitError as exc:
        assert str(history.LISTED_CHANGES) in str(exc)
    else:
        raise AssertionError("the listing was read whole")
    paths, _blobs = history.changes_of(repo, [f"{merge}...{git(mine, 'rev-parse', 'HEAD').strip()}"], "")
    assert paths <= {"INDEX.md"}  # a listing under its bound is answered as before


def test_an_octopus_merge_of_thousands_of_empty_roots_is_taken_and_read(tmp_path):
    """Held: a peer's merge of its branch and 2,000 root commits with empty trees (a commit of
    ~100 KB, under the sync's commit bound): sync takes it, and the next read costs no more
    than before it (a merge is read against its first parent, or streamed and bounded)."""
    mine, peer = person_and_peer(tmp_path)
    before = _peak_mb(mine)
    merge = _octopus(peer, 2_000, 0)
    _peer_git(peer, "push", "-q", "origin", f"{merge}:refs/heads/main")
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0 and "received 2001 commit(s)" in r.stdout, r.stdout + r.stderr
    after = _peak_mb(mine)
    assert after - before < _READ_ROOM_MB, (before, after)
    assert cli("--vault", str(mine), "list").returncode == 0
