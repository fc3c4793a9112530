"""How file systems compare names: case-insensitive ones (macOS's APFS and HFS+, Windows' NTFS)
take ``.VAULT-MEM`` for ``.vault-mem``, so every check of a state path compares this form, on
every system (a peer's commit made on Linux lands on a Mac)."""

from __future__ import annotations

import unicodedata

#: Code points that macOS's HFS+ leaves out of a file name when it compares two (git's list,
#: ``is_hfs_dotgit``): ``.vault\u200c-mem`` is ``.vault-mem`` there.
_HFS_IGNORED = dict.fromkeys([0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F),
                              *range(0x206A, 0x2070), 0xFEFF])


def disk_name(name: str) -> str:
    """The form of the path component ``name`` that a case-insensitive file system (macOS,
    Windows) compares: case folded, HFS+'s ignored code points and NTFS's trailing dots and
    spaces dropped. Two names with the same form are one file there."""
    folded = unicodedata.normalize("NFD", name.translate(_HFS_IGNORED)).casefold()
    return unicodedata.normalize("NFC", folded).rstrip(". ")
