"""Attacks on "a change made here adopts only what it changes" (``vault/authors._adopted``), as a
peer would make them: each a real bare remote, the peer's clone committing with raw git, the
person's plain git with vault-mem's hooks, the real CLI and agent hooks. Each case is one way a
peer's line came to count as the person's without the person choosing it: an editor's ordinary
save (whitespace, Unicode form), a peer's own lines that it made the person likely to touch, a
line re-added after the person's commit kept it, a merge commit made here."""

from __future__ import annotations

import unicodedata


from conftest import PINNED, agent_hook, git, person_and_peer, push_as_peer
from test_peer_adoption import LINE, MARK, _kept_out, _merged, _persons_edit


def _peer_writes(peer, text: str, message: str = "editor notes") -> None:
    (peer / PINNED).write_text(text)
    push_as_peer(peer, message)


def _autostash_with(mine, peer, line: str) -> None:
    """The peer appends ``line`` to the pinned memory; the person's edit of its description is
    merged with it by ``git pull --rebase --autostash`` (not committed)."""
    path = peer / PINNED
    _peer_writes(peer, path.read_text() + f"\n{line}\n")
    _persons_edit(mine)
    git(mine, "pull", "-q", "--rebase", "--autostash", "origin", "main")
    _merged(mine)


def test_an_editor_trimming_trailing_whitespace_adopts_nothing(tmp_path):
    """The peer's line ends in spaces; the person's editor trims trailing whitespace on save (the
    person touched only the description): the peer's words are all still there."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE + "   ")
    _kept_out(mine)
    path = mine / PINNED
    path.write_text("\n".join(line.rstrip() for line in path.read_text().split("\n")))
    _kept_out(mine)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)


def test_an_editor_saving_another_unicode_form_or_tabs_as_spaces_adopts_nothing(tmp_path):
    """The peer's line is in Unicode's decomposed form with a tab; the person's editor saves NFC
    and expands tabs: the same words, another byte sequence."""
    mine, peer = person_and_peer(tmp_path)
    line = unicodedata.normalize("NFD", "Caf\u00e9 rule:\t") + LINE
    _autostash_with(mine, peer, line)
    path = mine / PINNED
    path.write_text(unicodedata.normalize("NFC", path.read_text()).expandtabs(4))
    assert MARK in path.read_text()
    _kept_out(mine)


def test_crlf_line_ends_written_by_an_editor_adopt_nothing(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    path = mine / PINNED
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    _kept_out(mine)


def test_a_peer_that_touches_every_line_makes_no_edit_of_the_person_adopt_its_injection(tmp_path):
    """The peer rewrites each of the person's lines a little (so each is a line its change added)
    and appends its instruction. The person then corrects the description, as anyone would: one
    of the peer's lines rewritten, but the instruction still stands verbatim: still the peer's.
    Any one line of a peer's change still standing keeps the memory the peer's (the safe rule)."""
    mine, peer = person_and_peer(tmp_path)
    path = peer / PINNED
    text = path.read_text().replace("Uses Helix as the main editor", "Uses Helix as the main editor.")
    _peer_writes(peer, text + f"\n{LINE}\n")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    mine_path = mine / PINNED
    mine_path.write_text(mine_path.read_text().replace("main editor.", "main editor, default keymap"))
    assert MARK in mine_path.read_text()
    _kept_out(mine)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)


def test_a_peers_line_removed_then_re_added_after_the_persons_commit_kept_it_stays_the_peers(tmp_path):
    """The person's commit kept the peer's merged line (still the peer's), and was pushed; the
    peer removes the line, then adds it back: the line is in the person's last commit's text, but
    it was never the person's: re-added, it is the peer's again, and the person's later edit of
    the description adopts nothing."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)
    git(mine, "push", "-q", "origin", "main")
    git(peer, "pull", "-q", "--ff-only", "origin", "main")
    path = peer / PINNED
    text = path.read_text()
    _peer_writes(peer, text.replace(f"\n{LINE}\n", "\n"), "tidy")
    _peer_writes(peer, text, "notes again")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    _kept_out(mine)
    _persons_edit(mine, "and a light theme")
    assert MARK in (mine / PINNED).read_text()
    _kept_out(mine)
    git(mine, "commit", "-q", "-am", "my theme")
    _kept_out(mine)


def test_a_merge_commit_made_here_over_the_peers_change_keeps_its_line_the_peers(tmp_path):
    """The person commits an edit; the peer pushes its line; the person's `git pull` (a merge,
    not a rebase) makes a merge commit here whose text holds both: the peer's line stays the
    peer's, committed by the merge and after a later commit of the person's."""
    mine, peer = person_and_peer(tmp_path)
    _persons_edit(mine)
    git(mine, "commit", "-q", "-am", "my editor")
    path = peer / PINNED
    _peer_writes(peer, path.read_text() + f"\n{LINE}\n")
    git(mine, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    _merged(mine)
    assert len(git(mine, "log", "-1", "--format=%P").split()) == 2
    _kept_out(mine)
    _persons_edit(mine, "and a light theme")
    git(mine, "commit", "-q", "-am", "my theme")
    _kept_out(mine)


def test_the_prompt_hook_never_shows_a_rewritten_peer_memory_while_its_instruction_stands(tmp_path):
    """The peer creates a pinned memory; the person fixes the description's typo and commits:
    the instruction line the peer wrote is still there, verbatim, so still the peer's."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "procedures").mkdir(exist_ok=True)
    (peer / "procedures" / "deploy.md").write_text(
        "---\ndescription: Deploys go thruogh the release script\npinned: true\n---\n" f"{LINE}\n")
    push_as_peer(peer, "deploy notes")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    path = mine / "procedures" / "deploy.md"
    path.write_text(path.read_text().replace("thruogh", "through"))
    git(mine, "commit", "-q", "-am", "typo")
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="how do deploys go through the release script")
    assert MARK not in agent_hook(mine, "session-start", source="startup")


def test_a_memory_moved_here_with_the_peers_merged_line_keeps_it_the_peers(tmp_path):
    """The person's edit merged with the peer's line (autostash), then the file moved to a new key
    with ``git mv`` and committed: the new path's own history starts here, but the text's lines
    came from the peer's change at the old path: still the peer's (a strict xfail until trust23:
    the walk now follows a move made here, ``vault/authors._moved``)."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "mv", PINNED, "preferences/editor.md")
    git(mine, "commit", "-q", "-am", "my editor, renamed")
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert MARK not in agent_hook(mine, "session-start", source="startup")


def test_a_memory_moved_in_a_later_commit_or_twice_keeps_the_peers_line_the_peers(tmp_path):
    """trust23: the merged text committed first (the rows then say its path holds a peer's
    change), moved to another key in a later commit, then again: each move made here starts a
    new path, and the walk follows the history on at the path it moved from. Rewriting the
    peer's line while moving makes it the person's."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)
    git(mine, "mv", PINNED, "preferences/editor.md")
    git(mine, "commit", "-q", "-m", "renamed")
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    git(mine, "mv", "preferences/editor.md", "preferences/main-editor.md")
    git(mine, "commit", "-q", "-m", "renamed again")
    for name in ("index.db", "index.db-wal", "index.db-shm"):  # and from a sidecar made anew: one pass
        (mine / ".vault-mem" / name).unlink(missing_ok=True)
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    git(mine, "mv", "preferences/main-editor.md", PINNED)  # back to the key it had: its older history
    git(mine, "commit", "-q", "-m", "moved back")
    _kept_out(mine)
    path = mine / PINNED
    path.write_text(path.read_text().replace(LINE, "Before answering, check the changelog."))
    git(mine, "commit", "-q", "-am", "my words")
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")


def test_a_memory_moved_and_not_committed_keeps_the_peers_line_the_peers(tmp_path):
    """trust23: a move not committed yet (``git mv``, or ``mv`` by hand) leaves a new file with no
    history: the peer's merged line in it read as the person's until the move was committed.
    The new file is judged as an edit, not committed, of the committed memory gone from the disk
    whose text it shares; rewriting the peer's line makes it the person's."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "mv", PINNED, "preferences/editor.md")  # the merged text, neither committed
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    git(mine, "mv", "preferences/editor.md", PINNED)
    git(mine, "commit", "-q", "-am", "my editor")  # committed (the peer's), then moved by hand
    (mine / PINNED).rename(mine / "preferences" / "editor.md")
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    path = mine / "preferences" / "editor.md"
    path.write_text(path.read_text().replace(LINE, "Before answering, check the changelog."))
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")


def test_the_persons_own_memory_moved_here_stays_theirs(tmp_path):
    """The guard: a move of a memory only this machine changed asks nothing and stays theirs,
    beside a peer's change of another memory in the same history."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "other.md").write_text("---\ndescription: Another note\n---\n")
    push_as_peer(peer, "other")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    _persons_edit(mine)
    git(mine, "mv", PINNED, "preferences/editor.md")
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    git(mine, "commit", "-q", "-am", "my editor, renamed")
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    assert "default keymap" in agent_hook(mine, "session-start", source="startup")


def test_the_kept_state_follows_an_amend_a_reset_and_a_rebase(tmp_path):
    """The state kept for a history is the answer for that history alone: the person's commit
    amended to drop the peer's line is theirs; `git reset --hard` back to the commit that kept it
    is the peer's again; a rebase of the person's later commit over the peer's next one keeps it
    the peer's."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    kept = git(mine, "rev-parse", "HEAD").strip()
    _kept_out(mine)
    path = mine / PINNED
    path.write_text(path.read_text().replace(LINE, ""))
    git(mine, "commit", "-q", "-a", "--amend", "--no-edit")
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    git(mine, "reset", "-q", "--hard", kept)
    _kept_out(mine)
    _persons_edit(mine, "and a light theme")
    git(mine, "commit", "-q", "-am", "my theme")
    _kept_out(mine)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "other.md").write_text("---\ndescription: Another note\n---\n")
    push_as_peer(peer, "other")
    git(mine, "pull", "-q", "--rebase", "origin", "main")
    _kept_out(mine)


def test_a_merge_commit_made_here_keeps_the_peers_line_whichever_side_is_newer(tmp_path):
    """As above, the peer's commit made first and the person's after it: the merge's newest side
    is the person's, and the peer's side must still be read."""
    mine, peer = person_and_peer(tmp_path)
    path = peer / PINNED
    _peer_writes(peer, path.read_text() + f"\n{LINE}\n")
    git(mine, "fetch", "-q", "origin")
    _persons_edit(mine)
    git(mine, "commit", "-q", "-am", "my editor")
    git(mine, "merge", "-q", "--no-edit", "origin/main")
    _merged(mine)
    _kept_out(mine)
    git(mine, "checkout", "-q", "-b", "side", "HEAD~1")
    git(mine, "checkout", "-q", "main")
    _persons_edit(mine, "and a light theme")
    git(mine, "commit", "-q", "-am", "my theme")
    _kept_out(mine)


def test_a_peers_body_line_shaped_like_front_matter_bookkeeping_still_counts(tmp_path):
    """The front matter's bookkeeping lines (``created:``, ``pinned: true``) are no one's words
    and left out of a peer's contribution, so the person's rewrite can make a peer's memory
    theirs; the same shape in the body counts as any line (else a peer's body line
    ``source: MARK`` would be no line it added)."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, f"source: {MARK}")
    _kept_out(mine)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)


def test_a_new_file_beside_a_peers_memory_still_on_disk_reads_no_text_from_git(tmp_path, monkeypatch):
    """The cost guard of the move not committed (``_moved_uncommitted``): while a new memory
    file is not committed, a read asks git for no text unless a committed memory of a peer's
    history is gone from the disk. Counted, not timed: the ``git cat-file`` commands of one
    prompt hook, from GIT_TRACE."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)  # the peer's state worked out once, kept
    (mine / "facts").mkdir(exist_ok=True)
    (mine / "facts" / "build-cmd.md").write_text("---\ndescription: Build with make\n---\nmake all\n")
    assert "Build with make" in agent_hook(mine, "session-start", source="startup")
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="which editor do I use as the main editor")
    monkeypatch.delenv("GIT_TRACE")
    assert not [line for line in trace.read_text().splitlines() if "git cat-file" in line]
