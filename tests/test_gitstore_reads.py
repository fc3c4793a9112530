"""Reading many objects at once (GitObjects.read_objects, store/catfile.stream): what git says,
one object held at a time, a missing one said as damaged history, git stopped when the reader
stops early. Real git, real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import git

from vault_mem.errors import HistoryDamagedError
from vault_mem.store.catfile import stream
from vault_mem.store.git import GitRepo
from vault_mem.store.gitobjects import STREAM_FROM


def _blobs(root: Path, count: int) -> list[str]:
    """``count`` blobs written by git, some larger than a pipe's buffer (64 KB): their ids."""
    git(root, "init", "-q")
    paths = []
    for i in range(count):
        path = root / f"f{i}.txt"
        path.write_text(f"blob number {i}\n" + "x" * (i * 997 % 90_000))
        paths.append(str(path))
    return subprocess.run(["git", "hash-object", "-w", "--stdin-paths"], cwd=root, input="\n".join(paths),
                          capture_output=True, text=True, check=True).stdout.split()


@pytest.mark.parametrize("count", [STREAM_FROM - 1, 300])
def test_many_objects_read_as_git_cat_file_gives_them_in_order(tmp_path, count):
    oids = _blobs(tmp_path, count)
    oids = oids + oids[:5]  # the same object asked again is given again
    repo = GitRepo(tmp_path)
    try:
        got = list(repo.read_objects(oids))
        assert len(got) == len(oids)
        for oid, (kind, data) in zip(oids, got, strict=True):
            assert kind == "blob"
            assert data == subprocess.run(["git", "cat-file", "blob", oid], cwd=tmp_path, capture_output=True,
                                          check=True).stdout
    finally:
        repo.close()


def test_a_missing_object_among_many_is_damaged_history_named(tmp_path):
    oids = _blobs(tmp_path, 100)
    missing = "0123456789abcdef0123456789abcdef01234567"
    repo = GitRepo(tmp_path)
    try:
        reader = repo.read_objects(oids[:50] + [missing] + oids[50:])
        assert [kind for kind, _ in (next(reader) for _ in range(50))] == ["blob"] * 50
        with pytest.raises(HistoryDamagedError, match=missing):
            next(reader)
    finally:
        repo.close()


def test_a_reader_stopped_early_stops_its_git(tmp_path):
    oids = _blobs(tmp_path, 300)
    reader = stream(tmp_path, oids)
    assert next(reader)[0] == "blob"
    procs = [p for p in reader.gi_frame.f_locals.values() if isinstance(p, subprocess.Popen)]
    assert len(procs) == 1 and procs[0].poll() is None
    reader.close()
    assert procs[0].poll() is not None  # stopped and waited for: no process left behind
