"""Files on disk: the atomic write, crash-test checkpoints and the one safe reader of memory files.

Every memory file that vault-mem reads, for the index (:mod:`vault_mem.index.scan`), for ``get``
and for a write that updates it, is read by :func:`read_memory_bytes`, so every reader agrees on
what is refused: a symlinked file or type folder (DESIGN §7: vault-mem never follows a symlink for
a file it reads or writes itself), a file over the size limit, a path that is not a memory path.
Every file vault-mem writes goes through :func:`atomic_write`.

The no-follow primitives for vault-mem's own files (INDEX.md, vault.toml, ``.vault-mem/`` and
everything in it: locks, journals, index.db, the daemon's files) are here too, once:
:func:`refuse_link` (for what is opened by a library that cannot be told not to follow, such as
SQLite or a log handler), :func:`open_nofollow` and :func:`read_own`. Each refuses a symlink with
a :class:`~vault_mem.errors.LinkError` naming the link; the link's target is never touched.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from vault_mem.errors import ConcurrentEditError, LinkError, MalformedFileError, VaultMemError
from vault_mem.model.memory import key_type_from_path
from vault_mem.model.names import shown
from vault_mem.platform import durable, rename, writers

TEMP_MARK = ".vault-mem-tmp-"
#: Modes of vault-mem's own state (``.vault-mem/`` and every file in it: index.db holds every
#: memory's text), whatever the umask: this user's alone.
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def temp_path(path: Path) -> Path:
    """Where :func:`atomic_write` stages ``path`` (same folder, so the rename is atomic)."""
    return path.parent / f".{path.name}{TEMP_MARK}{os.getpid()}"


def remove_temp_files(folder: Path, name: str) -> None:
    """Delete the temp files that :func:`atomic_write` makes for ``folder/name`` (call with the
    write lock held: then no live writer owns one)."""
    for tmp in folder.glob(f".{name}{TEMP_MARK}*"):
        tmp.unlink(missing_ok=True)


def link_message(path: Path) -> str:
    """The refusal of the symlink at ``path``: where it points and what to do."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return (f"{path} is a symlink (to {target}); vault-mem never follows links for its own files, "
            f"so it was not used and its target was not touched: remove the link (rm '{path}') and retry")


def refuse_link(path: Path) -> Path:
    """``path``, after refusing it when it is a symlink (dangling or not); a missing path is fine.
    For files a library opens (SQLite, a log handler) where ``O_NOFOLLOW`` cannot be passed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(st.st_mode):
        raise LinkError(link_message(path))
    return path


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that never follows a symlink at ``path``: a link is a :class:`LinkError`."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LinkError(link_message(path)) from None
        raise


def read_own(path: Path, *, max_bytes: int | None = None) -> bytes | None:
    """The bytes of vault-mem's own file ``path`` (INDEX.md, vault.toml, a journal), or None when
    there is none; a symlink there, even a dangling one, is refused (:class:`LinkError`), as is
    anything that is not a regular file."""
    refuse_link(path)
    try:
        fd = open_nofollow(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen, which refuses a folder with a bare errno
        os.close(fd)
        raise VaultMemError(f"{shown(str(path))} is not a regular file; remove it and retry")
    with os.fdopen(fd, "rb") as fh:
        return fh.read() if max_bytes is None else fh.read(max_bytes)


def holds(path: Path, data: bytes) -> bool:
    """Whether the file at ``path`` (never through a symlink: :func:`current_bytes`'s rule) holds
    exactly ``data``, read only when its size is ``data``'s: a file a commit gave (a peer's 1 GB
    INDEX.md, a push of 1 MB, taken by a plain `git pull` or a clone) is never read whole to learn
    that it is not the one vault-mem renders. False when there is none."""
    fd = _open_file(path)
    if fd is None:
        return False
    size = os.fstat(fd).st_size
    with os.fdopen(fd, "rb") as fh:
        return size == len(data) and fh.read(len(data) + 1) == data


def _open_file(path: Path) -> int | None:
    """A read-only descriptor of the file at ``path``, never through a symlink (a link there is
    :class:`LinkError`), None when there is none (or only a dangling link: a write replaces the
    link itself); a folder there is :class:`MalformedFileError`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            if not os.path.exists(path):
                return None
            raise LinkError(link_message(path)) from None
        raise
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise MalformedFileError(f"{shown(str(path))} is a folder where vault-mem expects a file; move what it "
                                 "holds out, remove it and retry")
    return fd


def ensure_own_dir(path: Path) -> Path:
    """Make the folder ``path`` (vault-mem's state folder) unless it exists, mode
    :data:`PRIVATE_DIR` whatever the umask (a folder made before that rule is closed here); a
    symlink there is refused, so nothing vault-mem keeps in it can land elsewhere."""
    refuse_link(path)
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # made by someone else between the two calls
            raise LinkError(link_message(path)) from None
        raise
    try:
        _restrict(fd, PRIVATE_DIR)
    finally:
        os.close(fd)
    return path


def make_private(path: Path) -> None:
    """Take group and other users' access away from vault-mem's own file ``path`` (one made
    before :data:`PRIVATE_FILE` was the rule); a missing file or a link is left alone.

    By path, never by opening the file: closing any descriptor of a file drops every POSIX lock
    this process holds on it, and SQLite keeps its locks on index.db and its -shm that way (an
    open and close here broke the locks of the process's other connections: "disk I/O error").
    Only this user can change the folder it sits in (0700), so the lstat-then-chmod window is
    this user's own."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISREG(st.st_mode) and mode & ~PRIVATE_FILE and st.st_uid == os.geteuid():
        try:
            os.chmod(path, mode & PRIVATE_FILE)
        except OSError:
            pass  # a read-only file system: nothing can be changed there, by anyone


def _restrict(fd: int, allowed: int) -> None:
    """Drop every permission bit outside ``allowed`` from the open file ``fd`` (this user's own;
    another user's is left as it is)."""
    st = os.fstat(fd)
    mode = stat.S_IMODE(st.st_mode)
    if mode & ~allowed and st.st_uid == os.geteuid():
        try:
            os.fchmod(fd, mode & allowed)
        except OSError:
            pass  # a read-only file system: nothing can be changed there, by anyone


def current_bytes(path: Path, *, max_bytes: int | None = None) -> bytes | None:
    """The bytes at ``path`` now (never through a symlink), or None when there is no file (or
    only a dangling link); the first ``max_bytes`` when given (a file a commit gave may be any
    size)."""
    fd = _open_file(path)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read() if max_bytes is None else fh.read(max_bytes)


def atomic_write(path: Path, data: bytes, *, expect: bytes | None | bool = True, mode: int = 0o644,
                 sync_folder: bool = True) -> None:
    """Temp file in the same folder, fsync, rename, fsync the folder: all or nothing.

    ``sync_folder=False`` (with ``expect=True``) leaves the folder's fsync to the caller, who
    writes many files and then fsyncs each folder once, before anything depends on the new
    names (a sync: before HEAD moves). A crash before that leaves each name the old file or the
    new one, never a half-written file: the bytes are fsynced before the rename either way.

    ``expect`` (the bytes the writer checked, or None for "no file") makes the write refuse with
    :class:`ConcurrentEditError` when the target changed since it was read, so an editor's save
    that lands meanwhile is never overwritten. ``True`` (the default) skips that check. A
    symlink at ``path`` is never written through: the rename replaces the link itself, and a
    link at a checked path is refused.

    The checked rename, as late as the kernel allows: the target is compared once, then
    - no file expected: the temp file is hard-linked into place, which fails if a file appeared
      (nothing is ever replaced: no window at all);
    - a file expected: the temp file and the target are swapped atomically
      (``renameat2(RENAME_EXCHANGE)``), and the file that was swapped out is compared again; if
      a save slipped in between the compare and the swap, they are swapped back (the person's
      bytes are on disk again) and the write refuses.
    An editor that saves in place (vim opens the file, then truncates and writes it) may have
    opened it before the swap and write after the second compare, into the swapped-out file: so
    before that compare, the swapped-out file is checked for being open for writing in another
    process (:func:`open_for_writing_elsewhere`); if it is, it is swapped back and the write
    refuses, and the editor's bytes land in the file on disk. An editor that saves by rename
    always either wins or is refused. Where the system or the file system cannot swap, the swap is
    made by renaming the target aside and hard-linking the new file into its place, which fails
    when a save lands meanwhile (:func:`vault_mem.platform.rename.exchange`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    fd = open_nofollow(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            durable.fsync(fd)
            mine = os.fstat(fd).st_ino
        finally:
            os.close(fd)
    except BaseException:
        # a full disk (ENOSPC), a quota: no half-written temp file is left beside the memory
        tmp.unlink(missing_ok=True)
        raise
    if expect is True:
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        if sync_folder:
            fsync_dir(path.parent)
        return
    try:
        _check(path, expect, "writing")
        if expect is None and os.path.islink(path):
            os.replace(tmp, path)  # a dangling link holds nothing: it is replaced, never followed
        elif expect is None:
            try:
                os.link(tmp, path, follow_symlinks=False)
            except FileExistsError:
                raise _changed(path, "writing") from None
            tmp.unlink()
        else:
            _exchange(tmp, path)
            # first whether a save can still land in it (after that, nothing can change it),
            # then what it holds
            saving = open_for_writing_elsewhere(tmp)
            try:
                swapped_out = current_bytes(tmp)
            except VaultMemError:
                swapped_out = b""  # a link swapped in: not the checked bytes
            if saving or swapped_out != expect:
                # a save landed (or is landing) between the compare and the swap: give the
                # person's file back
                if _inode(path) == mine:
                    _exchange(tmp, path)
                raise _changed(path, "writing")
            tmp.unlink()
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)


def replace_file(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Temp file in the same folder, renamed over ``path`` (never written through a link), with no
    fsync: for a cache that a crash may lose or leave empty, whose reader then works it out again
    (a cache's fsyncs cost a write more than the work they spare the next command)."""
    tmp = temp_path(path)
    try:
        fd = open_nofollow(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _check(path: Path, expect: bytes | None, doing: str) -> None:
    if current_bytes(path) != expect:
        raise _changed(path, doing)


def _changed(path: Path, doing: str) -> ConcurrentEditError:
    return ConcurrentEditError(
        f"{path.name} changed while vault-mem was {doing} it (an editor's save?); your edit is "
        "kept and nothing was written: check the file and retry")


def _inode(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ino
    except FileNotFoundError:
        return None


def open_for_writing_elsewhere(path: Path) -> bool:
    """Whether another process holds the file at ``path`` open for writing (an editor in the
    middle of an in-place save). Where the system cannot tell (no leases, a file system without
    them, a file of another owner), False: the caller's compare alone decides."""
    return writers.open_for_writing_elsewhere(path) is True


def _exchange(a: Path, b: Path) -> None:
    """Swap the files at ``a`` and ``b``; a file deleted meanwhile, or (without an atomic swap)
    saved meanwhile, refuses the write."""
    try:
        rename.exchange(a, b, scratch=a.with_name(a.name + "-swap"))
    except (FileNotFoundError, FileExistsError):
        raise _changed(b, "writing") from None


def remove_file(path: Path, *, expect: bytes | None | bool = True) -> None:
    """Delete ``path`` (a missing file is fine); with ``expect``, only if it still holds those
    bytes: the file is renamed aside first and compared there, and put back (if no new file
    took its place) when it held something else (see :func:`atomic_write`)."""
    if expect is True:
        path.unlink(missing_ok=True)
        return
    _check(path, expect, "deleting")
    if expect is None:
        return
    aside = temp_path(path)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        raise _changed(path, "deleting") from None
    try:
        saving = open_for_writing_elsewhere(aside)  # see atomic_write
        try:
            moved = current_bytes(aside)
        except VaultMemError:
            moved = b""
        if saving or moved != expect:
            try:
                os.link(aside, path, follow_symlinks=False)  # back, unless a new save is there
            except FileExistsError:
                pass
            raise _changed(path, "deleting")
    finally:
        aside.unlink(missing_ok=True)


def fsync_dir(folder: Path) -> None:
    """Make a new name in ``folder`` durable."""
    durable.fsync_dir(folder)


def read_only_mount(path: Path) -> Path | None:
    """The mount point of the read-only file system that holds ``path`` (or its nearest existing
    folder), or None when that file system is mounted for writing (or cannot be asked). A
    read-only mount is no permission of the file's: ``chmod`` cannot change it, remounting it
    read-write does, so the refusal names it rather than the folder's mode."""
    probe = Path(os.path.abspath(path))
    while True:
        try:
            st = os.statvfs(probe)
            dev = os.stat(probe).st_dev
            break
        except FileNotFoundError:
            if probe.parent == probe:
                return None
            probe = probe.parent
        except OSError:
            return None
    if not st.f_flag & os.ST_RDONLY:
        return None
    while probe.parent != probe:  # up to the last folder on the same device: the mount point
        try:
            if os.stat(probe.parent).st_dev != dev:
                break
        except OSError:
            break
        probe = probe.parent
    return probe


def read_only_mount_reason(path: Path, what: str) -> str | None:
    """Why ``what`` cannot be written because ``path`` is on a read-only mount, with the fix;
    None when its file system is writable."""
    mount = read_only_mount(path)
    if mount is None:
        return None
    return (f"the file system holding {path} is mounted read-only (at {mount}), so vault-mem cannot "
            f"{what}; remount it read-write (`mount -o remount,rw {mount}`) and retry; reads answer "
            "from the files meanwhile")


def checkpoint(name: str, state_dir: Path) -> None:
    """Test hook for crash and race tests: with ``VAULT_MEM_PAUSE_AT=name`` the process
    announces the point in ``state_dir/paused-<name>`` and waits there to be killed, or to go on
    once a file ``state_dir/resume-<name>`` appears (it removes it)."""
    if os.environ.get("VAULT_MEM_PAUSE_AT") == name:
        atomic_write(state_dir / f"paused-{name}", str(os.getpid()).encode(), mode=PRIVATE_FILE)
        resume = state_dir / f"resume-{name}"
        while not os.path.lexists(resume):
            time.sleep(0.05)
        resume.unlink(missing_ok=True)
        (state_dir / f"paused-{name}").unlink(missing_ok=True)


def check_type_folder(root: Path, rel: str) -> None:
    """Refuse ``rel`` when its type folder is not a real folder of the vault at ``root`` (a
    symlink to elsewhere would make vault-mem read or write files outside the vault).

    One ``lstat`` of the folder's entry (~2 µs): a link there is refused wherever it points, a
    loop of links too; only the refusal resolves it to say where it leads. (Two ``realpath``
    calls per read were ~0.6 ms each, an ``lstat`` per component of the whole path: the
    vault's own location, the person's, is not what this guards.) A folder swapped for a link
    after this check is refused by :func:`read_memory_bytes` (its folder opened ``O_NOFOLLOW``)."""
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):  # `./facts/x.md` would lstat the vault's root
        raise MalformedFileError(f"{shown(rel)}: not a path inside the vault as git writes it "
                                 "(no empty, '.' or '..' parts)")
    folder = parts[0]
    try:
        st = os.lstat(root / folder)
    except OSError:
        return  # no folder (or none that can be read): nothing to follow; the read or write says why
    if stat.S_ISLNK(st.st_mode):
        raise MalformedFileError(_linked_folder(root, rel, folder))


def _linked_folder(root: Path, rel: str, folder: str) -> str:
    """The refusal of ``rel`` whose type folder ``folder`` is a symlink: where it leads."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(root / folder)
    where = "inside" if os.path.commonpath([real, real_root]) == real_root else "outside"
    return (f"{shown(rel)}: its folder {folder}/ is a symlink to {real}, {where} the vault; vault-mem never "
            "follows links: replace the link with a real folder and retry")


def describe_link(root: Path, path: Path) -> str:
    """What a symlinked memory file is, for the refusal: where it points, and whether that is
    inside the vault (it is refused either way)."""
    target = os.path.realpath(path)
    real_root = os.path.realpath(root)
    try:
        os.stat(path)
        gone = None
    except OSError as exc:
        gone = exc.errno
    if gone == errno.ELOOP:
        where = "a symlink in a loop of links"
    elif gone is not None:
        where = "a dangling symlink"
    elif os.path.commonpath([target, real_root]) == real_root:
        where = f"a symlink to {target}, inside the vault"
    else:
        where = f"a symlink to {target}, outside the vault"
    return (f"is {where}; vault-mem never follows links for memory files: replace the link with "
            "the file itself")


def read_memory_bytes(root: Path, rel: str, *, max_bytes: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes of the memory file ``rel`` (vault-relative) and its stat, or None when it is gone.

    The one safe reader: raises :class:`MalformedFileError` ``"<rel>: <what is wrong>"`` for a
    path that is not a memory path, a symlinked type folder or file (never followed, wherever it
    points), something that is not a regular file, or a file over ``max_bytes`` (refused before
    it is read). The file is opened with ``O_NOFOLLOW`` so a link swapped in after the checks is
    refused too."""
    key_type_from_path(rel)
    check_type_folder(root, rel)
    path = root / rel
    folder, name = rel.split("/", 1)
    try:
        # the folder, then the file in it, each never through a link: a folder swapped for a
        # link after the check above is refused here, not followed
        dir_fd = os.open(root / folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(root / folder):  # Linux: ENOTDIR
            raise MalformedFileError(_linked_folder(root, rel, folder)) from None
        raise MalformedFileError(f"{shown(rel)}: cannot be read ({exc.strerror or exc})") from None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MalformedFileError(f"{shown(rel)}: {describe_link(root, path)}") from None
        raise MalformedFileError(f"{shown(rel)}: cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(dir_fd)
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):  # os.fdopen refuses a folder's descriptor
        os.close(fd)
        raise MalformedFileError(f"{shown(rel)}: is a folder, not a memory file; move what it holds out "
                                 "and remove it (a memory is one .md file)")
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(st.st_mode):
            raise MalformedFileError(f"{shown(rel)}: is not a regular file; replace it with a plain .md file")
        if st.st_size > max_bytes:
            raise MalformedFileError(
                f"{shown(rel)}: is {st.st_size} bytes, over the limit of {max_bytes} (max_body_bytes in "
                "vault.toml); store a summary and a pointer instead"
            )
        data = fh.read(max_bytes + 1)
    return data, st
