"""The output a page shows for a write is what the command prints (docs/sync.md showed
``create: preferences/editor.md (commit ...)`` after the line had gained `` in VAULT``).

So is the note about a peer's vault.toml change (it had lost "by NAME" and been reworded, and
docs/sync.md still showed the old one). Each ``create:``, ``update:``, ``forgot:`` and ``undone:`` line of a session shown in README.md or
docs/ (a fenced block of ``$ command`` lines) must have the shape the CLI prints for that
verb, learned from a real run: the paths, keys and commit ids become wildcards, every other
character must be the same.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

from conftest import cli, git, push_as_peer
from test_docs import PAGES, ROOT, _blocks, _text

VERBS = ("create", "update", "forgot", "undone")


def _shapes(root: str) -> dict[str, re.Pattern[str]]:
    """``{verb: pattern}`` from what the commands print in a vault at ``root``."""
    said = [
        cli("--vault", root, "remember", "editor", "--type", "preference", "-d", "Uses Helix").stdout,
        cli("--vault", root, "remember", "editor", "--type", "preference", "-d", "Uses Zed").stdout,
        cli("--vault", root, "forget", "editor").stdout,
        cli("--vault", root, "undo", "editor").stdout,
    ]
    shapes = {}
    for out in said:
        line = out.strip().splitlines()[-1]
        pattern = re.escape(line)
        pattern = pattern.replace(re.escape(root), r"\S+")
        pattern = re.sub(r"[0-9a-f]{10}", "[0-9a-f]{10}", pattern)
        pattern = pattern.replace(re.escape("preferences/editor.md"), r"\S+\.md").replace("editor", r"\S+")
        shapes[line.split(":", 1)[0]] = re.compile(pattern)
    assert set(shapes) == set(VERBS), said
    return shapes


def _shown(text: str) -> list[str]:
    """The lines of the sessions a page shows that begin with one of :data:`VERBS`."""
    return [line for block in _blocks(text) if any(r.startswith("$ ") for r in block.splitlines())
            for line in block.splitlines() if line.split(":", 1)[0] in VERBS and ": " in line]


def test_every_write_line_a_page_shows_is_what_the_cli_prints(tmp_path, monkeypatch):
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")  # the line's shape, not the model, is the point
    root = str(tmp_path / "vault")
    assert cli("init", root).returncode == 0
    shapes = _shapes(str((tmp_path / "vault").resolve()))
    shown = [(page, line) for page in PAGES for line in _shown(_text(page))]
    assert len(shown) >= 4, "the write lines of docs/sync.md were not found: the extraction broke"
    wrong = [f"{page.relative_to(ROOT)}: {line!r} (the CLI prints the shape {shapes[line.split(':')[0]].pattern!r})"
             for page, line in shown if not shapes[line.split(":", 1)[0]].fullmatch(line)]
    assert not wrong, "write lines that are not what the CLI prints:\n" + "\n".join(wrong)


PENDING = "note: vault.toml has changes this machine has not approved"


def test_the_pending_settings_note_a_page_shows_is_what_the_cli_prints(pair, monkeypatch):
    """The note of a peer's vault.toml change, learned from a real sync of one: the commit id and
    the list of changes are wildcards, the rest must be the same."""
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")
    _, a, peer = pair
    toml = peer / "vault.toml"
    toml.write_text(re.sub(r"(?m)^k = 5$", "k = 3", toml.read_text()))
    push_as_peer(peer, "fewer hits")
    assert cli("--vault", str(a), "sync").returncode == 0
    said = [ln for ln in cli("--vault", str(a), "list").stderr.splitlines() if ln.startswith(PENDING)]
    assert len(said) == 1 and "[recall] k: 5 -> 3" in said[0], said
    head, rest = said[0].split("): ", 1)
    tail = rest[rest.index(". Until"):]
    shape = re.compile(re.sub(r"[0-9a-f]{10}", "[0-9a-f]{10}", re.escape(head)) + r"\): .+?" + re.escape(tail))
    shown = [(page, line) for page in PAGES for block in _blocks(_text(page)) for line in block.splitlines()
             if line.startswith(PENDING)]
    assert shown, "docs/sync.md shows the note: the extraction broke"
    wrong = [f"{page.relative_to(ROOT)}: {line!r}" for page, line in shown if not shape.fullmatch(line)]
    assert not wrong, f"the note as the CLI prints it:\n{said[0]}\nnot as shown:\n" + "\n".join(wrong)


def _session_output(page: str, command: str) -> list[str]:
    """The lines a page's session shows after the ``$ command`` line that starts with
    ``command``, up to the next ``$ `` line or the block's end."""
    for block in _blocks(_text(ROOT / page)):
        rows = block.splitlines()
        for i, row in enumerate(rows):
            if row.startswith(f"$ {command}"):
                out = []
                for line in rows[i + 1:]:
                    if line.startswith("$ "):
                        break
                    out.append(line)
                return out
    raise AssertionError(f"{page} shows no `$ {command}` session: the extraction broke")


def _as_shape(said: str, *wild: str) -> re.Pattern[str]:
    """``said`` as a pattern in which each of ``wild`` (a path, a URL) may be anything."""
    pattern = re.escape(said)
    for w in wild:
        pattern = pattern.replace(re.escape(w), r"\S+")
    return re.compile(pattern)


def test_the_pre_commit_refusal_a_page_shows_is_what_git_prints(tmp_path, monkeypatch):
    """docs/hand-edits-and-daemon.md's `git commit` of the memory with broken frontmatter it shows,
    made for real through the installed hook: the page showed the YAML error without the position
    the hook names."""
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")
    root = tmp_path / "vault"
    assert cli("init", str(root)).returncode == 0
    page = "docs/hand-edits-and-daemon.md"
    (root / "facts" / "bad-one.md").write_text("\n".join(_session_output(page, "cat facts/bad-one.md")) + "\n")
    git(root, "add", "facts/bad-one.md")
    proc = subprocess.run(["git", "commit", "-m", "notes"], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode != 0, proc.stdout
    shown = _session_output(page, 'git commit -m "notes"')
    assert shown == proc.stderr.strip().splitlines(), f"the page shows:\n{shown}\ngit printed:\n{proc.stderr}"


def test_the_unreachable_chat_server_error_a_page_shows_is_what_the_cli_prints(tmp_path, monkeypatch):
    """docs/integrations/local-models.md's `vault-mem agent` with no chat server, run against a
    port nothing listens on (the URL is the wildcard)."""
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")
    root = tmp_path / "vault"
    assert cli("init", str(root)).returncode == 0
    with socket.socket() as s:  # a port of this machine that was free a moment ago: refused
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    r = cli("--vault", str(root), "agent", "--url", url, "hello")
    assert r.returncode == 1, r
    said = r.stderr.strip().splitlines()[-1]
    shown = _session_output("docs/integrations/local-models.md", "vault-mem --vault ~/agent-memory agent")
    assert len(shown) == 1 and _as_shape(said, f"{url}/v1/chat/completions").fullmatch(shown[0]), (shown, said)


def test_the_unreachable_remote_error_a_page_shows_is_what_sync_prints(tmp_path, monkeypatch):
    """docs/sync.md's sync to a remote that is not there (its path is the wildcard)."""
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")
    root = tmp_path / "vault"
    assert cli("init", str(root)).returncode == 0
    nowhere = str(tmp_path / "nowhere" / "memory.git")
    git(root, "remote", "add", "origin", nowhere)
    r = cli("--vault", str(root), "sync")
    assert r.returncode == 1, r
    said = r.stderr.strip().splitlines()[-1]
    shown = [
        line for block in _blocks(_text(ROOT / "docs/sync.md")) for line in block.splitlines()
        if line.startswith("error: cannot reach remote")]
    assert len(shown) == 1 and _as_shape(said, nowhere).fullmatch(shown[0]), (shown, said)


def test_the_readmes_python_example_runs_and_prints_a_hit(tmp_path):
    """README.md's Python block, run as it stands in a fresh process against ``~/agent-memory``
    (this test's own HOME) made with `vault-mem init`: it writes, and its recall prints the memory
    it wrote as a hit, in the fields the block names (keyword search: the model is not the point)."""
    blocks = [b for b in re.findall(r"^```python\n(.*?)^```", _text(ROOT / "README.md"), re.S | re.M)]
    assert len(blocks) == 1 and 'Vault("~/agent-memory")' in blocks[0], "README.md's Python example was not found"
    assert cli("init", str(Path.home() / "agent-memory")).returncode == 0
    proc = subprocess.run([sys.executable, "-c", blocks[0]], capture_output=True, text=True, check=False,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first == "editor-choice strong Uses Helix as the main editor 0", proc.stdout
