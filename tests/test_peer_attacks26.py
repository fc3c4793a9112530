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

The fix's reviewer (the tests after ``_blob_id``): what the bound left unread had fallen to the
person's side (a move made here whose old text went unread was not followed; one path's unread
history made every path judged with it the peer's), and the process's record of its own commits
answered for a commit ``git replace`` or a grafts file had given git another reading of.

Tried by hand and held (no test: each is ground an earlier run's test covers): ``.gitattributes``
and other files git reads under other spellings (case, HFS+'s ignored code points: every file
vault-mem does not read waits for approval, and names are folded as macOS and Windows fold them).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from conftest import (PEER_EMAIL, PINNED, agent_hook, cli, git, person_and_peer, push_as_peer, share_ci_memory,
                      trusted_by_key)
from test_peer_adoption import LINE, MARK

from vault_mem.store import history
from vault_mem.store.git import GitRepo
from vault_mem.store.gitobjects import Identity
from vault_mem.vault import authors

PEER = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}

#: a fresh process's first reads of the vault as an agent's session makes them (the session-start
#: context, then a recall: who wrote what, the peers judged); prints the most memory Python held
#: for it at once, in MB (its own allocations: the RSS of a process moves with the allocator)
_FIRST_READ = """
import sys, tracemalloc
tracemalloc.start()
from vault_mem import Vault
from vault_mem.vault import authors
if len(sys.argv) > 2:
    authors.TEXTS_READ_BYTES = int(sys.argv[2])
vault = Vault(sys.argv[1])
vault.render_trusted_index()
vault.recall("which editor and which build port")
vault.close()
print(tracemalloc.get_traced_memory()[1] // 2**20)
"""

#: what the first read after the sync may take beyond the same read before it (MB): the texts
#: of history it reads are bounded (``vault/authors.py``'s :data:`TEXTS_READ_BYTES`, 8 MB)
_READ_ROOM_MB = 32
#: that bound lowered (in the test's process, where the sync and the reads are made, and in the
#: reading process), so that a tenth or a quarter of the versions is past it as 1,000 of 40 KB
#: (40 MB) are past 8 MB: the same rule at a fraction of the git and Python work (the stream
#: written, packed, fetched, walked and read)
_LOW_TEXTS_BOUND = 1024 * 1024


def _peer_git(peer, *args: str, input: bytes | None = None) -> None:
    subprocess.run(["git", *args], cwd=peer, env={**os.environ, **PEER}, check=True, capture_output=True,
                   input=input)


def _peak_mb(mine, texts_bound: int | None = None) -> int:
    """:data:`_FIRST_READ`'s figure; ``texts_bound``: ``authors.TEXTS_READ_BYTES`` lowered to it
    in that process."""
    bound = [] if texts_bound is None else [str(texts_bound)]
    proc = subprocess.run([sys.executable, "-c", _FIRST_READ, str(mine), *bound], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ""})
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.split()[-1])


def _padding(lines: int, seed: str = "") -> bytes:
    """``lines`` distinct short lines (what costs a set of lines the most per byte)."""
    return "".join(f"{seed}line {i} of padding\n" for i in range(lines)).encode()


def _versions(body: bytes, n: int) -> bytes:
    """A ``git fast-import`` stream of ``n`` commits of the peer's, each a version of the pinned
    memory: ``body`` and one line of its own."""
    stream = []
    for i in range(n):
        data = body + f"version {i}\n".encode()
        stream.append(b"commit refs/heads/main\ncommitter Mallory <%s> %d +0000\ndata 2\nv\n"
                      % (PEER_EMAIL.encode(), 1_790_000_000 + i))
        if i == 0:
            stream.append(b"from refs/heads/main^0\n")
        stream.append(b"M 100644 inline %s\ndata %d\n%s\n" % (PINNED.encode(), len(data), data))
    return b"".join(stream)


#: the many-versions test at a quarter of the sizes: the bound on one reading of history's texts
#: (8 MB) lowered to :data:`_LOW_TEXTS_BOUND` in the reading process and in this one (the sync),
#: 250 versions of 40 KB (10 MB) past it as 1,000 (40 MB) are past 8 MB, and the room the first
#: read may take beyond the same read before the sync lowered with it. With no bound at all the
#: same 250 versions took the read 11-14 MB more (measured: 200 versions, the bound at 10**12:
#: 22 MB against 8-11 before; at 1 MB, 9-10 against 8-11), as main's reading of every version did
_LOW_READ_ROOM_MB = 6


def test_many_versions_each_under_the_size_limit_cost_the_first_read_a_bounded_amount(tmp_path, monkeypatch):
    """Before: 1,000 commits of one path a peer pushed, each a 40 KB text one line apart from the
    last (a few hundred KB of pack as deltas; no file over any limit), then the person's own edit
    of it: the next read worked out whose lines stand from every version since the peer's
    change, all 40 MB held at once (Python's peak 79 MB against 13 before the sync; 2,000
    versions, 151 MB). Now one reading holds at most 8 MB of history's texts; past that the
    path's history counts as unreadable (the peer's, the safe side). Here at a quarter of the
    sizes (:data:`_LOW_READ_ROOM_MB`): 250 versions, 10 MB, against a bound of 1 MB."""
    monkeypatch.setattr(authors, "TEXTS_READ_BYTES", _LOW_TEXTS_BOUND)
    mine, peer = person_and_peer(tmp_path)
    before = _peak_mb(mine, _LOW_TEXTS_BOUND)
    original = (peer / PINNED).read_bytes()
    body = original + _padding(1_800)
    versions = 250
    assert len(body) * versions > 8 * _LOW_TEXTS_BOUND
    stream = _versions(body, versions)
    _peer_git(peer, "fast-import", "--quiet", input=stream)
    _peer_git(peer, "push", "-q", "origin", "main")

    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0, r.stderr
    # the person's own edit over the peer's text: whose lines stand is read from its history
    (mine / PINNED).write_bytes((mine / PINNED).read_bytes().replace(b"version 249", b"version 250"))
    git(mine, "commit", "-q", "-am", "my edit")
    after = _peak_mb(mine, _LOW_TEXTS_BOUND)
    assert after - before < _LOW_READ_ROOM_MB, (before, after)


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


# --- atk26's reviewer: what the texts bound left unread fell to the person's side ---------------

def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _ground(body: bytes, want) -> bytes:
    """``body`` and a 12-byte tag (fixed width) such that the text's blob id passes ``want``."""
    base = hashlib.sha1(b"blob %d\0" % (len(body) + 12) + body)
    for n in range(100_000_000):
        tag = b"\n<!--%06d>" % n
        h = base.copy()
        h.update(tag)
        if want(h.hexdigest()):
            return body + tag
    raise AssertionError("no id found")


def _peers_deploy_memory_moved_by_the_person(mine, peer, *, committed: bool = True) -> bytes:
    """The peer's pinned memory ``procedures/deploy.md`` (its instruction line in it; its blob id
    ground to start with ``ff``, after any other), pulled by the person, who moves it to
    ``facts/deploy.md`` and edits one line (a new blob id under ``fe``); committed or not.
    Returns the new text."""
    (peer / "procedures").mkdir(exist_ok=True)
    old = _ground(f"---\ndescription: Deploys go through the release script\npinned: true\n---\n{LINE}\n".encode(),
                  lambda h: h.startswith("ff"))
    (peer / "procedures" / "deploy.md").write_bytes(old)
    push_as_peer(peer, "deploy notes")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    assert trusted_by_key(mine)["deploy"] is False
    (mine / "facts").mkdir(exist_ok=True)
    git(mine, "mv", "procedures/deploy.md", "facts/deploy.md")
    new = _ground(old.replace(b"release script", b"release script (checked)"), lambda h: h < "fe")
    (mine / "facts" / "deploy.md").write_bytes(new)
    if committed:
        git(mine, "add", "-A")
        git(mine, "commit", "-q", "-m", "a fact, not a procedure")
    return new


def _shown(mine) -> bool:
    return (MARK in agent_hook(mine, "session-start", source="startup")
            or MARK in agent_hook(mine, "user-prompt-submit", prompt="how do deploys go through the release script"))


def test_a_peers_own_moves_cannot_take_the_texts_bound_from_the_persons_move_of_its_memory(tmp_path):
    """The person moves (and edits) the peer's memory; the peer then pushes 144 texts of its own
    memories moved from folder to folder (no net change), their ids ground to sort between the
    person's new text and the peer's old one, sizes chosen to fill the 8 MB bound exactly there.
    The texts of a move are read in blob-id order: the new one read, the old one left out, no
    lines in common, the move not followed, and the moved memory (the peer's line in it) was the
    person's, in the session-start context. Now the texts of the moves made here are read before
    a peer's, and an unread one on either side means the move is followed."""
    mine, peer = person_and_peer(tmp_path)
    new = _peers_deploy_memory_moved_by_the_person(mine, peer)
    old_id = _blob_id((peer / "procedures" / "deploy.md").read_bytes())
    folders = ["facts", "decisions", "notes", "preferences", "procedures"]
    names = [f"bulk-{i}" for i in range(16)]
    smalls = [1 << k for k in range(16, 5, -1)] * 2 + [64] * 10
    for step in range(9):
        folder, prev = folders[step % 5], folders[(step - 1) % 5]
        for i, name in enumerate(names):
            if step:
                (peer / prev / f"{name}-{step - 1}.md").unlink()
            (peer / folder).mkdir(exist_ok=True)
            size = 79_800 if step < 7 else smalls[(step - 7) * 16 + i]
            body = (b"---\ndescription: bulk %d %d\n---\n" % (step, i) + b"x" * size)[:size - 12]
            m = (step - 7) * 16 + i
            lo, hi = ("fe", "fe8") if step < 7 else ("fe%02x" % (0x80 + m), "fe%02x" % (0x81 + m))
            data = _ground(body, lambda h, lo=lo, hi=hi: lo <= h < hi)
            assert len(data) == size and lo <= _blob_id(data) < old_id
            (peer / folder / f"{name}-{step}.md").write_bytes(data)
        _peer_git(peer, "add", "-A")
        _peer_git(peer, "commit", "-q", "--no-verify", "-m", f"bulk {step}")
    for name in names:
        (peer / folders[8 % 5] / f"{name}-8.md").unlink()
    push_as_peer(peer, "bulk gone")
    git(mine, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert (mine / "facts" / "deploy.md").read_bytes() == new
    assert trusted_by_key(mine)["deploy"] is False
    assert not _shown(mine)


def test_a_move_made_here_whose_old_text_went_unread_is_followed(tmp_path):
    """The rule itself, whatever the order of the reading: the peer's memory over the file size
    limit (pulled with plain git: vault-mem reads it not), which the person moves and trims under
    it, the peer's line kept. Its old text is past the bound (``each``), its new one read. On main
    a move made here was followed only when its texts shared lines or its new text was unread:
    the peer's line in the moved memory counted as the person's, in the session-start context."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "procedures").mkdir(exist_ok=True)
    head = f"---\ndescription: Deploys go through the release script\npinned: true\n---\n{LINE}\n".encode()
    (peer / "procedures" / "deploy.md").write_bytes(head + _padding(5_000))  # ~100 KB: over 80 KB
    push_as_peer(peer, "deploy notes")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    (mine / "facts").mkdir(exist_ok=True)
    git(mine, "mv", "procedures/deploy.md", "facts/deploy.md")
    (mine / "facts" / "deploy.md").write_bytes(head.replace(b"release script", b"release script (checked)"))
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "a fact, not a procedure, and short")
    assert trusted_by_key(mine)["deploy"] is False
    assert not _shown(mine)


def test_a_move_not_committed_from_a_text_left_unread_is_followed(tmp_path, monkeypatch):
    """The same for a move not committed (``git mv`` and an edit): the committed texts gone from
    the disk that the bound leaves unread may be the one moved, and the move is taken as one.
    On main no lines in common with an unread text meant no move: the new file was the person's."""
    from vault_mem import Vault
    from vault_mem.adapters.tools import list_rows

    mine, peer = person_and_peer(tmp_path)
    _peers_deploy_memory_moved_by_the_person(mine, peer, committed=False)
    monkeypatch.setattr(authors, "TEXTS_READ_BYTES", 0)
    with Vault(mine) as vault:
        trusted = {e["key"]: e["trusted"] for e in list_rows(vault)}
    assert trusted["deploy"] is False


def test_one_paths_history_past_the_bound_leaves_the_other_paths_judged_with_it_judged(tmp_path, monkeypatch):
    """The peer's 100 versions of the person's pinned memory (4 MB, past the bound, lowered to
    1 MB here as 1,000 of them, 40 MB, are past 8 MB), then one commit of the person's editing
    that memory and their own ``facts/ci.md`` (a peer's line in it long removed by the person):
    both are judged in one reading. On main one path's unread text made every path of the
    reading the peer's: the person's own memory hidden. Now each path's own texts decide, the
    shortest histories read first."""
    monkeypatch.setattr(authors, "TEXTS_READ_BYTES", _LOW_TEXTS_BOUND)
    mine, peer = person_and_peer(tmp_path)
    share_ci_memory(mine, peer)
    ci = peer / "facts" / "ci.md"
    ci.write_text(ci.read_text() + f"\n{LINE}\n")
    push_as_peer(peer, "ci notes")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    path = mine / "facts" / "ci.md"
    path.write_text(path.read_text().replace(f"\n{LINE}\n", "\n"))
    git(mine, "commit", "-q", "-am", "not that")
    assert trusted_by_key(mine)["ci"] is True
    body = (peer / PINNED).read_bytes() + _padding(1_800)
    versions = 100
    assert len(body) * versions > 3 * _LOW_TEXTS_BOUND  # the pinned memory's history is past the bound
    stream = _versions(body, versions)
    git(peer, "pull", "-q", "--ff-only", "origin", "main")
    _peer_git(peer, "fast-import", "--quiet", input=stream)
    _peer_git(peer, "push", "-q", "origin", "main")
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0, r.stderr
    (mine / PINNED).write_bytes((mine / PINNED).read_bytes().replace(b"version", b"v."))
    path.write_text(path.read_text().replace("every push", "every push and nightly"))
    git(mine, "commit", "-q", "-am", "my edits")
    assert trusted_by_key(mine)["ci"] is True


def test_a_commit_replaced_or_grafted_since_this_process_made_it_is_read_as_git_reads_it(tmp_path):
    """write31's record of what a commit this process made changed answered for it even after
    ``git replace`` swapped the commit (or a shallow or grafts file gave git other parents):
    changed_paths and last_authors said the agent's write where git says the replacement's.
    Now the record is git's to answer then, as the loose-object reader already leaves it."""
    root = tmp_path / "rr"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.md").write_text("base\n")
    (root / "b.md").write_text("b\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")

    def g(*args: str, input: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True, input=input,
                              env={**os.environ, **PEER}).stdout.strip()

    repo = GitRepo(str(root))
    parent = repo.head()
    made = repo.commit_paths({"a.md": b"agent\n"}, "agent write", author=Identity("agent", "agent@example.com"))
    assert repo.own_change(made) is not None
    for grafts in (False, True):
        if grafts:  # git reads the commit as a root: every path it holds is a change
            (root / ".git" / "info").mkdir(exist_ok=True)
            (root / ".git" / "info" / "grafts").write_text(f"{made}\n")
        else:
            a = g("hash-object", "-w", "--stdin", input="agent\n")
            b = g("hash-object", "-w", "--stdin", input="changed by the replacement\n")
            other = g("commit-tree", g("mktree", input=f"100644 blob {a}\ta.md\n100644 blob {b}\tb.md\n"),
                      "-p", parent, "-m", "x")
            g("replace", made, other)
            want = set(g("diff-tree", "-r", "--name-only", "--no-commit-id", parent, made).split())
            assert want == {"a.md", "b.md"}
            assert set(history.changed_paths(repo, parent, made, ".")) == want
        authors_of = history.last_authors(repo, made, parent, ["."])
        fresh = history.last_authors(GitRepo(str(root)), made, parent, ["."])
        assert set(authors_of) == set(fresh) and {k: v[:2] for k, v in authors_of.items()} == \
            {k: v[:2] for k, v in fresh.items()}
        assert repo.own_change(made) is None
        if grafts:
            (root / ".git" / "info" / "grafts").unlink()
        else:
            g("replace", "-d", made)
    assert repo.own_change(made) is not None  # neither left: the record answers again
