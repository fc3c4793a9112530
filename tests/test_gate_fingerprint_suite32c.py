"""The secret gate's fingerprint (index/scan.py) is kept while the rules' files are as they were:
a process that reconciles again (the daemon, the MCP server) stats them instead of reading and
hashing them all, and any change to a file (written, replaced, gone) gives the digest of what is
there now, the same as a fresh read."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from vault_mem.index import scan


def _fresh(names: tuple[str, ...], files: dict[str, str]) -> str:
    h = hashlib.sha256()
    for name in names:
        try:
            h.update(Path(files[name]).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.hexdigest()[:16]


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Three stand-in rule modules in files of their own, and a count of the files read."""
    names = ("rules_a", "rules_b", "rules_c")
    files = {n: str(tmp_path / f"{n}.py") for n in names}
    for i, n in enumerate(names):
        Path(files[n]).write_text(f"RULE = {i}\n")
    monkeypatch.setattr(scan, "GATE_MODULES", names)
    monkeypatch.setattr(scan, "_module_file", lambda name: files[name])
    monkeypatch.setattr(scan, "_KEPT_FINGERPRINT", [None, ""])
    reads: list[str] = []
    real = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return names, files, reads


def test_unchanged_rules_are_not_read_again(rules) -> None:
    names, files, reads = rules
    first = scan.gate_fingerprint()
    assert first == _fresh(names, files)
    reads.clear()
    assert scan.gate_fingerprint() == first
    assert reads == []


def test_a_rule_written_since_gives_the_new_digest(rules) -> None:
    names, files, reads = rules
    first = scan.gate_fingerprint()
    path = Path(files["rules_b"])
    st = path.stat()
    path.write_text("RULE = 9\n")  # the same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    now = scan.gate_fingerprint()
    assert now != first and now == _fresh(names, files)


def test_a_rule_replaced_by_another_file_gives_the_new_digest(rules) -> None:
    names, files, _ = rules
    first = scan.gate_fingerprint()
    other = Path(files["rules_c"] + ".new")
    other.write_text("RULE = 7\n")
    os.replace(other, files["rules_c"])
    now = scan.gate_fingerprint()
    assert now != first and now == _fresh(names, files)


def test_a_missing_rule_file_is_hashed_by_name_and_never_kept(rules) -> None:
    names, files, reads = rules
    os.unlink(files["rules_a"])
    assert scan.gate_fingerprint() == _fresh(names, files)
    reads.clear()
    assert scan.gate_fingerprint() == _fresh(names, files)
    assert len(reads) >= 2  # read again: nothing was kept
    Path(files["rules_a"]).write_text("RULE = 0\n")
    assert scan.gate_fingerprint() == _fresh(names, files)


def test_the_real_rules_digest_is_a_fresh_reads() -> None:
    files = {n: scan._module_file(n) for n in scan.GATE_MODULES}
    assert scan.gate_fingerprint() == _fresh(scan.GATE_MODULES, files)
    assert scan.gate_fingerprint() == _fresh(scan.GATE_MODULES, files)
