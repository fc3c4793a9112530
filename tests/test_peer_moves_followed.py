"""A move is no authorship (issue 23, ``vault/authors._adopted``): what else the cause of the
peer's-move xfail broke, each through a real bare remote, the peer's raw git, the person's plain
git with vault-mem's hooks. A peer's move in one commit is followed back to the path it came
from, so it contributes what it added there and no more; a move launders nothing (the lines
standing before it stand after it); a copy is not followed (the safe side, pinned); a person's
move of a peer's memory keeps it the peer's until approved."""

from __future__ import annotations

from conftest import PEER_EMAIL, PINNED, agent_hook, at_terminal, git, person_and_peer, push_as_peer, trusted_by_key
from test_peer_adoption import LINE, MARK
from test_peer_adoption_attacks import _autostash_with

PROMPT = "which editor do I use as the main editor"


def _peer_moves(peer, new: str, *, extra: str = "") -> None:
    """The peer moves the person's pinned memory to ``new`` (another type folder when ``new``
    says so), ``extra`` appended in the same commit, and pushes."""
    (peer / new).parent.mkdir(exist_ok=True)
    git(peer, "mv", PINNED, new)
    if extra:
        (peer / new).write_text((peer / new).read_text() + extra)
    push_as_peer(peer, "renamed")


def _peer_appends(peer, rel: str, line: str = LINE) -> None:
    (peer / rel).write_text((peer / rel).read_text() + f"\n{line}\n")
    push_as_peer(peer, "editor notes")


def _pull(mine) -> None:
    git(mine, "pull", "-q", "--ff-only", "origin", "main")


def _person_removes(mine, rel: str, text: str) -> None:
    path = mine / rel
    path.write_text(path.read_text().replace(text, ""))
    git(mine, "commit", "-q", "-am", "not that")


def test_a_peers_move_across_type_folders_with_its_line_in_the_same_commit(tmp_path):
    """The peer moves the person's preference into facts/ and appends its line in that commit:
    the peer's (its line, added by the move commit, stands); the person removes that line and
    the memory is theirs again (the move added nothing else). The line never reaches the agent."""
    mine, peer = person_and_peer(tmp_path)
    moved = "facts/editor.md"
    _peer_moves(peer, moved, extra=f"\n{LINE}\n")
    _pull(mine)
    assert trusted_by_key(mine)["editor"] is False
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    _person_removes(mine, moved, f"\n{LINE}\n")
    assert trusted_by_key(mine)["editor"] is True
    assert "Uses Helix as the main editor" in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_peers_move_that_also_adds_supersedes_keeps_that_line_the_peers(tmp_path):
    """The peer's move adds a ``supersedes:`` line to the front matter with the move, then its
    instruction: the person removing the instruction alone leaves the peer's supersedes line
    standing (still the peer's); removing it too makes the memory the person's."""
    mine, peer = person_and_peer(tmp_path)
    moved = "preferences/editor.md"
    (peer / "preferences").mkdir(exist_ok=True)
    git(peer, "mv", PINNED, moved)
    path = peer / moved
    path.write_text(path.read_text().replace("\n---\n", "\nsupersedes: [deploy-window]\n---\n", 1))
    assert "supersedes: [deploy-window]" in path.read_text()
    push_as_peer(peer, "renamed")
    _peer_appends(peer, moved)
    _pull(mine)
    assert trusted_by_key(mine)["editor"] is False
    _person_removes(mine, moved, f"\n{LINE}\n")
    assert trusted_by_key(mine)["editor"] is False
    _person_removes(mine, moved, "supersedes: [deploy-window]\n")
    assert trusted_by_key(mine)["editor"] is True


def test_a_move_launders_nothing_the_peers_kept_line_moved_by_the_peer_stays_the_peers(tmp_path):
    """The person's commit kept the peer's merged line (the peer's); the peer moves that memory:
    following the move carries the line's standing over, so it is still the peer's; the peer's
    line removed and re-added after the move is the peer's again; the person's later edit of the
    description adopts nothing."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    git(mine, "push", "-q", "origin", "main")
    git(peer, "pull", "-q", "--ff-only", "origin", "main")
    moved = "preferences/editor.md"
    git(peer, "mv", PINNED, moved)
    push_as_peer(peer, "renamed")
    _pull(mine)
    assert trusted_by_key(mine)["editor"] is False
    text = (peer / moved).read_text()
    (peer / moved).write_text(text.replace(f"\n{LINE}\n", "\n"))
    push_as_peer(peer, "tidy")
    (peer / moved).write_text(text)
    push_as_peer(peer, "notes again")
    git(mine, "pull", "-q", "--rebase", "origin", "main")  # (INDEX.md may have been committed here)
    assert trusted_by_key(mine)["editor"] is False
    path = mine / moved
    path.write_text(path.read_text().replace("default keymap", "default keymap and a light theme"))
    git(mine, "commit", "-q", "-am", "my theme")
    assert trusted_by_key(mine)["editor"] is False
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_peers_copy_is_not_followed_the_safe_side(tmp_path):
    """The peer copies the person's memory under a new key (the old one kept) and appends its
    line to the copy: the person removing the line leaves the copy the peer's (a copy is not
    followed: its history starts at the peer's commit, every line the peer's), the original
    the person's. The peer's line never reaches the agent."""
    mine, peer = person_and_peer(tmp_path)
    copy = "preferences/editor-copy.md"
    (peer / copy).write_bytes((peer / PINNED).read_bytes())
    push_as_peer(peer, "copied")
    _peer_appends(peer, copy)
    _pull(mine)
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
    _person_removes(mine, copy, f"\n{LINE}\n")
    keys = trusted_by_key(mine)
    assert keys["editor-copy"] is False and keys["editor-choice"] is True


def test_the_persons_move_of_a_peers_memory_across_folders_stays_the_peers_until_approved(tmp_path):
    """The peer's own memory (created by the peer) moved by the person into another type folder
    and edited there: the peer's lines stand, so it stays the peer's, out of the context; the
    person approving the peer lets it in."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "procedures").mkdir(exist_ok=True)
    (peer / "procedures" / "deploy.md").write_text(
        "---\ndescription: Deploys go through the release script\npinned: true\n---\n" f"{LINE}\n")
    push_as_peer(peer, "deploy notes")
    _pull(mine)
    (mine / "facts").mkdir(exist_ok=True)
    git(mine, "mv", "procedures/deploy.md", "facts/deploy.md")
    git(mine, "commit", "-q", "-m", "a fact, not a procedure")
    assert trusted_by_key(mine)["deploy"] is False
    path = mine / "facts" / "deploy.md"
    path.write_text(path.read_text().replace("release script", "release script (checked)"))
    git(mine, "commit", "-q", "-am", "checked")
    assert trusted_by_key(mine)["deploy"] is False
    assert MARK not in agent_hook(mine, "session-start", source="startup")
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt="how do deploys go through the release script")
    assert at_terminal("trust", "--vault", str(mine), "--author", PEER_EMAIL).returncode == 0
    assert trusted_by_key(mine)["deploy"] is True


def test_a_peers_commit_moving_more_than_the_bound_is_not_followed(tmp_path):
    """A peer's commit that moves more memories than ``history.PEER_MOVE_FILES`` (its own and the
    person's) is not paired text by text (each added text against each deleted one: a peer's
    commit moving thousands would cost refresh their product): not followed, the safe side, so
    the person's memory it moved stays the peer's after the person removes the peer's line."""
    from vault_mem.store.history import PEER_MOVE_FILES

    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    for i in range(PEER_MOVE_FILES):
        (peer / "facts" / f"note-{i}.md").write_text(f"---\ndescription: Peer note {i}\n---\n")
    push_as_peer(peer, "notes")
    (peer / "decisions").mkdir(exist_ok=True)
    for i in range(PEER_MOVE_FILES):
        git(peer, "mv", f"facts/note-{i}.md", f"decisions/note-{i}.md")
    _peer_moves(peer, "facts/editor.md", extra=f"\n{LINE}\n")
    _pull(mine)
    assert trusted_by_key(mine)["editor"] is False
    _person_removes(mine, "facts/editor.md", f"\n{LINE}\n")
    assert trusted_by_key(mine)["editor"] is False
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_peers_commits_moving_no_memory_leave_its_move_followed(tmp_path):
    """``history.PEER_MOVES_WALKED`` counts the peers' moves of memories, the one meaning of the
    bound (``history.PeerMoves``): a peer's commits after its move that each add and delete a
    file that is no memory (notes beside the type folders) used up the walk's room before, so
    the move was not followed and the person's memory stayed the peer's after the person removed
    the peer's line, whereas the bound said "the newest 32 moves"."""
    from vault_mem.store.history import PEER_MOVES_WALKED

    mine, peer = person_and_peer(tmp_path)
    _peer_moves(peer, "facts/editor.md", extra=f"\n{LINE}\n")
    env = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL}
    (peer / "notes").mkdir(exist_ok=True)
    (peer / "notes" / "n-0.txt").write_text("a note\n")
    push_as_peer(peer, "a note")
    for i in range(PEER_MOVES_WALKED):
        git(peer, "mv", f"notes/n-{i}.txt", f"notes/n-{i + 1}.txt")
        git(peer, "-c", f"user.email={env['GIT_AUTHOR_EMAIL']}", "-c", "user.name=Mallory",
            "commit", "-q", "--no-verify", "-m", f"note {i}")
    git(peer, "push", "-q", "origin", "main")
    _pull(mine)
    assert trusted_by_key(mine)["editor"] is False
    _person_removes(mine, "facts/editor.md", f"\n{LINE}\n")
    assert trusted_by_key(mine)["editor"] is True
