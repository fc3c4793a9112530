"""The safe reader's type-folder check (suite33c), cheaper and no weaker.

The safe reader checks the type folder with one ``lstat`` per read (no resolution kept from an
earlier read): a folder replaced by a link is refused at the next read, and one swapped for a link
after that check, before the open, is refused too (the folder is opened ``O_NOFOLLOW``, the file
relative to it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from vault_mem.errors import MalformedFileError
from vault_mem.store import files

_MAX = 64 * 1024


def _memory(description: str, body: str = "Plain notes.\n") -> bytes:
    return f"---\ndescription: {description}\n---\n\n{body}".encode()


@pytest.fixture
def plain_vault(tmp_path: Path) -> tuple[Path, Path]:
    """A vault folder with facts/a.md, and a folder outside it holding a file of the same name."""
    root = tmp_path / "vault"
    (root / "facts").mkdir(parents=True)
    (root / "facts" / "a.md").write_bytes(_memory("inside the vault"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.md").write_bytes(_memory("OUTSIDE the vault"))
    return root, outside


def test_a_type_folder_replaced_by_a_link_after_a_read_is_refused_at_the_next(plain_vault) -> None:
    root, outside = plain_vault
    assert files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)[0] == _memory("inside the vault")
    shutil.rmtree(root / "facts")
    (root / "facts").symlink_to(outside)
    with pytest.raises(
        MalformedFileError, match=r"folder facts/ is a symlink to .*outside, outside the vault"
    ):
        files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)
    with pytest.raises(MalformedFileError, match="is a symlink"):
        files.check_type_folder(root, "facts/a.md")
    # a link inside the vault is refused as well, and said to be inside
    (root / "facts").unlink()
    (root / "real").mkdir()
    (root / "facts").symlink_to(root / "real")
    with pytest.raises(MalformedFileError, match="inside the vault"):
        files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)
    # and a real folder again reads again
    (root / "facts").unlink()
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(_memory("back"))
    assert files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)[0] == _memory("back")


def test_a_type_folder_swapped_for_a_link_after_the_check_is_not_followed(plain_vault, monkeypatch) -> None:
    """The race the check alone leaves: the folder is real when checked, a link when opened
    (fails on main, which opened ``<root>/facts/a.md`` by its path and read the outside file)."""
    root, outside = plain_vault
    real_check = files.check_type_folder

    def check_then_swap(root_: Path, rel: str) -> None:
        real_check(root_, rel)
        os.rename(root_ / "facts", root_ / "facts-moved")
        (root_ / "facts").symlink_to(outside)

    monkeypatch.setattr(files, "check_type_folder", check_then_swap)
    with pytest.raises(MalformedFileError, match="folder facts/ is a symlink"):
        files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)


def test_a_type_folder_in_a_loop_of_links_is_refused_by_the_check(plain_vault) -> None:
    root, _ = plain_vault
    shutil.rmtree(root / "facts")
    (root / "facts").symlink_to("facts")  # a link to itself
    with pytest.raises(MalformedFileError, match="is a symlink"):
        files.check_type_folder(root, "facts/a.md")
    with pytest.raises(MalformedFileError):
        files.read_memory_bytes(root, "facts/a.md", max_bytes=_MAX)


def test_a_missing_type_folder_is_no_file_and_no_refusal(tmp_path: Path) -> None:
    (tmp_path / "facts").mkdir()
    files.check_type_folder(tmp_path, "notes/a.md")
    assert files.read_memory_bytes(tmp_path, "notes/a.md", max_bytes=_MAX) is None
    assert files.read_memory_bytes(tmp_path, "facts/a.md", max_bytes=_MAX) is None


@pytest.mark.parametrize("rel", ["./facts/x.md", ".//facts/x.md", "facts//x.md", "facts/./x.md", "facts/../facts/x.md"])
def test_a_memory_path_spelt_otherwise_than_git_writes_it_is_refused_by_the_safe_reader(tmp_path, rel):
    """pathlib reads `./facts/x.md` and `facts//x.md` as facts/x.md, but the reader opens the
    name relative to its type folder: `./facts/x.md` checked the vault's root for a link and then
    followed a linked facts/ out of the vault; `facts//x.md` opened /x.md (the review of suite33c).
    Both are refused, whatever is on disk."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("---\ndescription: outside\n---\n\nnot in the vault\n")
    vault = tmp_path / "vault"
    vault.mkdir()
    os.symlink(outside, vault / "facts")
    with pytest.raises(MalformedFileError):
        files.check_type_folder(vault, rel)
    with pytest.raises(MalformedFileError):
        files.read_memory_bytes(vault, rel, max_bytes=1 << 20)
