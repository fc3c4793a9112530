"""The secret gate's verdict on a file, kept (suite33c), is the verdict, for each input that
changes it: kept by (path, SHA-256 of the bytes), in this process only, so changed bytes, another
path, or bytes other than the ones a write's gate passed are judged again; a process running other
rules judges every file again (the sidecar's gate fingerprint), and no verdict is kept on disk.

Credential-shaped strings are built at run time (tests/fakes.py), so this file holds none.
"""

from __future__ import annotations

import os
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import aws_key, random_token

from vault_mem.index import scan
from vault_mem.model import policy as policy_mod
from vault_mem.model.policy import WritePolicy

_MAX = 64 * 1024


def _memory(description: str, body: str = "Plain notes.\n") -> bytes:
    return f"---\ndescription: {description}\n---\n\n{body}".encode()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A vault folder with an empty facts/ folder (the reads here need no repository)."""
    (tmp_path / "vault" / "facts").mkdir(parents=True)
    return tmp_path / "vault"


def _read(root: Path, rel: str) -> scan.FileState:
    state = scan.read_file(
        root, rel, max_bytes=_MAX, policy=WritePolicy(max_body_bytes=_MAX, max_file_bytes=_MAX)
    )
    assert state is not None
    return state


def test_a_kept_verdict_is_judged_again_when_the_bytes_change(root: Path) -> None:
    clean = _memory("deploy notes for suite33c", "Run make deploy.\n")
    (root / "facts" / "a.md").write_bytes(clean)
    assert not _read(root, "facts/a.md").quarantined
    assert not _read(root, "facts/a.md").quarantined  # kept: the same answer
    (root / "facts" / "a.md").write_bytes(
        _memory("deploy notes for suite33c", f"Run make deploy.\nkey {aws_key()}\n")
    )
    state = _read(root, "facts/a.md")
    assert state.quarantined and "AWS" in (state.problem or "")
    (root / "facts" / "a.md").write_bytes(clean)  # the value removed: clean again
    assert not _read(root, "facts/a.md").quarantined


def test_a_kept_verdict_belongs_to_its_path(root: Path) -> None:
    """The key (the file's name) is judged too: the same bytes under a name holding a token are
    quarantined though they were clean under another name."""
    data = _memory("the same bytes under two names (suite33c)")
    token = "npm" + "_" + random_token(36, string.ascii_lowercase + string.digits)  # a key is lower-case
    (root / "facts" / "plain.md").write_bytes(data)
    (root / "facts" / f"{token}.md").write_bytes(data)
    assert not _read(root, "facts/plain.md").quarantined
    assert _read(root, f"facts/{token}.md").quarantined


def test_a_writes_verdict_is_kept_for_its_own_bytes_only(root: Path) -> None:
    policy = WritePolicy(max_body_bytes=_MAX, max_file_bytes=_MAX)
    passed = _memory("what the write's gate passed (suite33c)")
    policy.check_file("facts/a.md", passed)
    (root / "facts" / "a.md").write_bytes(passed)
    assert not _read(root, "facts/a.md").quarantined
    # another writer put other bytes there after the write: judged, not taken as the write's
    other = passed + f"\nkey {aws_key()}\n".encode()
    (root / "facts" / "a.md").write_bytes(other)
    assert _read(root, "facts/a.md").quarantined
    assert (
        policy_mod.file_secrets("facts/a.md", other)
        == policy_mod._file_secrets("facts/a.md", other, None)
        != []
    )


def test_a_kept_verdict_is_the_verdict_and_a_caller_cannot_change_it() -> None:
    data = _memory("a note", f"key {aws_key()}\n")
    got = policy_mod.file_secrets("facts/a.md", data)
    want = list(got)
    assert want == policy_mod._file_secrets("facts/a.md", data, None)
    got.clear()
    assert policy_mod.file_secrets("facts/a.md", data) == want


_MARKER = "suite33c-marker-rule"
#: what the process running the newer rules does: reconciles the vault, says what it lists, its
#: problems, and where its rules came from
_NEWER_PROCESS = """import sys
from vault_mem import Vault
import vault_mem.model.secrets as rules
v = Vault(sys.argv[1])
v.reconcile()
print([e["key"] for e in v.list()])
print([p.reason for p in v.sidecar.problems()])
print(rules.__file__)
v.close()
"""


def test_a_process_running_other_rules_judges_every_file_again(tmp_path: Path) -> None:
    """Rules changed (a newer vault-mem): a copy of the package with one rule more, in a process
    of its own, quarantines a file this process judged clean and indexed, by the sidecar's gate
    fingerprint; nothing of this process's verdicts reaches it (none is kept on disk)."""
    from conftest import new_vault

    v = new_vault(tmp_path / "vault")
    try:
        v.remember("rules", f"a note naming {_MARKER}", "Plain text.")
        v.reconcile()
        assert not v.sidecar.problems()
        assert [e["key"] for e in v.list()] == ["rules"]
    finally:
        v.close()
    package = Path(policy_mod.__file__).resolve().parent.parent
    copy = tmp_path / "newer" / "vault_mem"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    rules = copy / "model" / "secrets.py"
    text = rules.read_text()
    head = "    if not text:\n        return []\n"
    assert head in text
    rules.write_text(
        text.replace(
            head,
            head + f"    if {_MARKER!r} in text:\n"
            f"        i = text.index({_MARKER!r})\n"
            f"        return [SecretFinding('marker token', i, i + {len(_MARKER)})]\n",
            1,
        )
    )
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            _NEWER_PROCESS,
            str(tmp_path / "vault"),
        ],
        cwd=tmp_path,  # not the checkout: `python -c` imports from its folder first
        env=dict(os.environ, PYTHONPATH=str(copy.parent)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    listed, problems, ran = run.stdout.splitlines()[:3]
    assert ran.startswith(str(copy))  # the newer rules ran
    assert listed == "[]"
    assert "marker token" in problems
