"""The model file's sha256 checked once per version of the file on this machine
(:mod:`vault_mem.embed.checked`), not once per process (35-39 ms of every cold read that loads
the model); a file replaced or rewritten is hashed again and refused, even with its size kept
and its modification time put back (``touch -r``): its inode or its change time moved, which no
call sets back. Not shown, because no test can make it happen on purpose: a replacement within
the same tick of the kernel's change-time clock as the recorded check, on the same inode number
and size, is not seen (the module docstring's limits). Real files, the real record."""

from __future__ import annotations

import hashlib
import os
import stat
import types
from pathlib import Path

import pytest

from vault_mem.platform import settle
from vault_mem.embed import checked
from vault_mem.embed import local as embed
from vault_mem.errors import EmbedderError

SIZE = 1 << 20


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the record's module hashed a file."""
    calls: list[int] = []

    def sha256(data: bytes):
        calls.append(len(data))
        return hashlib.sha256(data)

    monkeypatch.setattr(checked, "hashlib", types.SimpleNamespace(sha256=sha256))
    return calls


def put_back_times(path: Path, st: os.stat_result) -> None:
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_the_model_is_hashed_once_per_version_and_a_replacement_with_its_stamp_put_back_is_caught(
        tmp_path: Path, hashed: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # the files here are written a moment before their reads
    model = tmp_path / "model.onnx"
    data = os.urandom(SIZE)
    model.write_bytes(data)
    good = hashlib.sha256(data).hexdigest()
    original = model.stat()

    def read() -> bytes:
        return embed._read_verified_model(model, sha256=good, size=SIZE)

    assert read() == data and len(hashed) == 1
    record = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem" / checked.RECORD
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert read() == data and read() == data and len(hashed) == 1  # the same version: not hashed again

    # replaced by another file of the same size, its modification time put back
    other = tmp_path / "other.onnx"
    other.write_bytes(os.urandom(SIZE))
    os.replace(other, model)
    put_back_times(model, original)
    with pytest.raises(EmbedderError, match="sha256"):
        read()
    # the original bytes put back in place, then other bytes written in place (same inode and
    # size), the modification time put back each time
    model.write_bytes(data)
    put_back_times(model, original)
    assert read() == data and len(hashed) == 3  # hashed again: another version of the file
    with open(model, "r+b") as fh:
        fh.write(b"\0" * 64)
    put_back_times(model, original)
    assert model.stat().st_size == SIZE and model.stat().st_mtime_ns == original.st_mtime_ns
    with pytest.raises(EmbedderError, match="sha256"):
        read()
    with pytest.raises(EmbedderError, match="sha256"):
        read()  # a failed check records nothing


def test_a_record_that_is_not_this_users_own_is_not_believed(tmp_path: Path, hashed: list[int],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # the file here is written a moment before its read
    model = tmp_path / "model.onnx"
    data = os.urandom(SIZE)
    model.write_bytes(data)
    good = hashlib.sha256(data).hexdigest()
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data
    record = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem" / checked.RECORD
    record.chmod(0o666)  # writable by others: anyone could have written it
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data and len(hashed) == 2
    real = record.with_name("elsewhere.json")
    os.replace(record, real)
    record.symlink_to(real)  # a link: never read through
    before = real.read_bytes()
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data and len(hashed) == 3
    assert real.read_bytes() == before  # never written through: the link itself replaced by a file of our own
    assert not record.is_symlink() and stat.S_IMODE(record.stat().st_mode) == 0o600


def test_a_file_changed_a_moment_ago_is_not_recorded_and_no_home_writes_no_record_in_the_working_folder(
        tmp_path: Path, hashed: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A version whose change time is within SETTLE_NS of its check is hashed again at the next
    read: a replacement within one tick of the clock could keep its stamp. With no home (no HOME,
    no XDG_CONFIG_HOME: ``~`` stays ``~``) nothing is written, least of all a ``./~`` folder in
    the process's working folder (a hook's: the person's project)."""
    model = tmp_path / "model.onnx"
    data = os.urandom(SIZE)
    model.write_bytes(data)
    good = hashlib.sha256(data).hexdigest()
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data
    assert len(hashed) == 2
    assert not (Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem" / checked.RECORD).exists()

    monkeypatch.setattr(settle, "SETTLE_NS", 0)
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", "~")  # what expanduser gives without HOME and a passwd entry
    monkeypatch.chdir(tmp_path)
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data
    assert embed._read_verified_model(model, sha256=good, size=SIZE) == data
    assert len(hashed) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx"]
