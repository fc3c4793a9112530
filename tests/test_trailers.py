"""The commit-trailer format has one home (vault_mem/model/trailers.py), and real git agrees with it.

The names were spelled in one module that wrote them and five that read them (a regular
expression of git's trailer line in sync, prefixes in the secret gate, a key list in ``log``, a
``git log`` format in the store): a renamed or added trailer drifted. Now every module asks
``vault_mem.model.trailers``; these tests keep it so and check what it writes is what git reads.
"""

from __future__ import annotations

import pytest

import ast
from pathlib import Path

from conftest import git
from vault_mem.model import trailers as tr

PACKAGE = Path(__file__).resolve().parent.parent / "vault_mem"
HOME = PACKAGE / "model" / "trailers.py"
NAMES = (*tr.STRUCTURAL, tr.AGENT)


def _literals(tree: ast.AST):
    """Every string constant of a module but its docstrings (prose may name a trailer)."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node


def test_trailer_names_are_spelled_only_in_their_home():
    """No module but model/trailers.py writes ``Memory-Key:`` (or any trailer of vault-mem's)
    into a message, matches it, or asks git for it by name."""
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOME:
            continue
        for node in _literals(ast.parse(path.read_text(), str(path))):
            text = node.value
            for name in NAMES:
                if text == name or f"{name}:" in text or f"key={name}" in text:
                    bad.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {text[:60]!r}")
    assert not bad, "trailer names spelled outside vault_mem/model/trailers.py:\n" + "\n".join(bad)


def _commit(repo: Path, message: str) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_what_is_written_git_reads_as_trailers_and_parses_back(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    block = tr.memory_trailers(key="db-choice", action="create", type_="fact", agent="claude: code")
    message = "remember: db-choice — Postgres\n\n" + block + tr.trailer(tr.REVERTS, "0" * 40)
    commit = _commit(repo, message)
    seen = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", commit)
    assert seen.strip() == block.strip() + f"\nReverts: {'0' * 40}"
    assert tr.parse_trailers(seen) == {"Memory-Key": "db-choice", "Memory-Action": "create",
                                       "Memory-Type": "fact", "Agent": "claude: code", "Reverts": "0" * 40}
    # what `last_changes` asks git for: the Agent trailer's value, by the one name
    agent = git(repo, "log", "-1", f"--format=%(trailers:key={tr.AGENT},valueonly)", commit)
    assert agent.strip() == "claude: code"


def test_added_trailers_join_the_block_git_sees(tmp_path):
    """A sync's note goes into the commit's trailer block (git lists it with the others); a
    message without one gets a new block."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    note = tr.trailer(tr.SYNC_CONFLICT, "k was changed on the remote too; its version was kept")
    with_block = tr.add_trailers("remember: k — x\n\n" + tr.memory_trailers(key="k", action="update"), [note])
    assert "\n\n" not in with_block.split("\n\n", 1)[1]  # one block, not two
    listed = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", _commit(repo, with_block))
    assert listed.strip().splitlines() == ["Memory-Key: k", "Memory-Action: update", note.strip()]
    plain = tr.add_trailers("a person's commit\n\nwith a body line\n", [note])
    listed = git(repo, "log", "-1", "--format=%(trailers:only,unfold)", _commit(repo, plain))
    assert listed.strip().splitlines() == [note.strip()]
    assert plain.startswith("a person's commit\n\nwith a body line\n\n")


def test_the_secret_gate_reads_what_a_caller_chose_only():
    message = ("remember: k — x\n\nbody words\n\n" + tr.memory_trailers(key="k", action="create", type_="fact",
                                                                       agent="the-agent")
               + tr.trailer(tr.REVERTS, "a" * 40) + tr.trailer(tr.RESOLVES, "k-conflict-1"))
    assert tr.caller_chosen_text(message).splitlines() == ["remember: k — x", "", "body words", "", " the-agent"]


def test_a_vault_write_and_its_undo_read_back_through_log(vault):
    vault.remember("k", "First version", "one\n")
    vault.remember("k", "Second version", "two\n")
    undone = vault.undo("k")
    entries = vault.log("k")
    assert [(e.key, e.action) for e in entries] == [("k", "update"), ("k", "update"), ("k", "create")]
    body = git(vault.root, "log", "-1", "--format=%B", undone.commit)
    assert tr.parse_trailers(body)[tr.REVERTS] == entries[1].commit


def test_the_gate_reads_an_escaped_subject_as_the_text_it_came_from(tmp_path) -> None:
    """A commit subject vault-mem escapes (a control character in a description, attack54) is read
    by the secret gate as the text it came from: ``x\\x1b[2Jsource`` after ``remember: KEY —``
    looked like a password given by its use, so a memory whose description held an escape
    sequence could be written but not committed, and a peer's such memory not forgotten. A
    credential is refused whether escaped or not."""
    from conftest import new_vault

    from vault_mem.errors import SecretError
    from vault_mem.model.names import visible
    from vault_mem.model.trailers import caller_chosen_text

    raw = "x\x1b[2Jsource \u202eevil"
    assert caller_chosen_text(f"remember: k — {visible(raw, prose=True)}\n\nMemory-Key: k\n") == f"remember: k — {raw}\n"
    vault = new_vault(tmp_path / "v")
    vault.remember("inj", raw, "body")
    vault.forget("inj")
    with pytest.raises(SecretError):
        vault.remember("db", "password=\x1bhunter2Xq9!zz", "body")
    vault.close()
