"""What git does to the vault's files is vault-mem's to say, not a ``.gitattributes`` a peer
commits (DESIGN §7).

Git reads attributes from every ``.gitattributes`` in the work tree; a peer's line
``* merge=vault-mem-index`` once made a person's own ``git pull --rebase`` drop their conflicting
commit silently (vault-mem's INDEX.md driver kept one side of every file), ``* filter=x`` ran a
filter of the person's config on the vault's files, ``* working-tree-encoding=UTF-16LE`` made every
command fail. Two layers stop that:

- :func:`protect_attributes` writes a block into ``$GIT_DIR/info/attributes``, which outranks every
  ``.gitattributes``: for the vault folder's files the attributes that make git run something or
  rewrite bytes are unspecified (``!attr``: as if no file set them; ``-attr`` would set them
  false, which means something else for ``text`` and ``diff``), then INDEX.md gets vault-mem's
  merge driver. The person's own lines in that file are kept; only the vault's folder is
  touched (a vault in a project's ``memory/`` leaves the project's files alone).
- The driver itself (:func:`merge_driver`) is path-safe: git passes it the path (``%P``), and for
  anything but the INDEX.md of a vault of the repository (each named exactly) it does git's own
  three-way merge (``git merge-file``), conflicts reported as conflicts, so a stray attribute can
  never make it drop one side. Any file named INDEX.md once counted: a teammate's
  ``INDEX.md merge=vault-mem-index`` made the person's ``git pull --rebase`` drop their commit to
  the project's own top-level INDEX.md, which no block of the vault's covers.

Git config and ``info/`` are not cloned, so init, ``vault-mem hooks install`` and every sync
call :func:`protect`; each is idempotent.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from vault_mem.config import STATE_DIR
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.files import atomic_write, current_bytes
from vault_mem.store.git import GitRepo, glob_escaped
from vault_mem.store.worktree import config_values, forget_config

DRIVER = "vault-mem-index"
_CASE = "case %P in "
_KEEP = ") exit 0;; esac; "
_MERGE = "exec git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"


def _sq(text: str) -> str:
    """``text`` single-quoted for sh, always (a case pattern matching it literally)."""
    return "'" + text.replace("'", "'\\''") + "'"


def merge_driver(paths: Iterable[str]) -> str:
    """The driver's command (git substitutes %P shell-quoted, %A/%O/%B as plain temp-file names):
    the files at exactly ``paths`` (each vault's INDEX.md, from the repository's top) keep either
    side, since INDEX.md is regenerated after every merge; any other path is merged as git merges
    text, with its conflicts."""
    return _CASE + "|".join(_sq(p) for p in sorted(set(paths))) + _KEEP + _MERGE


#: the driver of a vault at the top of its repository (the usual standalone vault)
MERGE_DRIVER = merge_driver([INDEX_FILE])


#: the driver earlier vault-mem wrote, which kept a side of any file named INDEX.md
_ANY_INDEX = f"case %P in {INDEX_FILE}|*/{INDEX_FILE})"


def replace_older_driver(repo: GitRepo, prefix: str) -> bool:
    """Rewrite the driver of an earlier vault-mem (:data:`_ANY_INDEX`) as :func:`protect` writes it;
    True when it did. A read of ``.git/config``'s text; git runs only for an older driver, once.
    Called where the hooks are checked or run, not on every opening of the vault (trust23: a read
    of ``.git/config`` per command for a state each clone leaves once): ``doctor``, the
    post-checkout, post-merge and post-rewrite hooks (a person's checkout, pull or rebase, so the
    driver is this version's from the first git operation after the upgrade that can merge);
    ``hooks install``, init and every sync call :func:`protect`, which rewrites it as well. A
    clone made before kept it until ``hooks install``, and in a project (no sync calls
    :func:`protect` there) that was for good."""
    try:
        text = (repo.common_dir / "config").read_bytes()
    except OSError:
        return False
    if _ANY_INDEX.encode() not in text:
        return False
    protect(repo, prefix)
    return True


def _driver_paths(value: str | None) -> list[str]:
    """The paths an existing driver of :func:`merge_driver`'s form keeps a side of (another vault
    of the same repository); none for any other value (an older driver's ``*/INDEX.md``)."""
    if not value or not value.startswith(_CASE + "'") or _KEEP not in value:
        return []
    lexer = shlex.shlex(value[len(_CASE):value.index(_KEEP)], posix=True, punctuation_chars="|")
    try:
        return [word for word in lexer if word != "|"]
    except ValueError:
        return []
#: Attributes that make git run a command or change bytes between the repository and the work
#: tree (``crlf`` is ``text``'s old name, still read), unset for the vault's files.
NEUTRAL = ("merge", "filter", "diff", "working-tree-encoding", "ident", "export-subst", "text", "eol",
           "crlf", "conflict-marker-size")
_BEGIN = "# >>> vault-mem"
_END = "# <<< vault-mem"


def ensure_index_merge_driver(repo: GitRepo, *also: str, prefix: str = "") -> dict[str, str]:
    """Define (or bring up to date) the merge driver that INDEX.md's attribute names, for the
    vault at ``prefix`` (its folder in the repository) and the vaults it named already. Returns
    the git config values of the names ``also``, read by the same git process (as
    :func:`~vault_mem.store.worktree.config_values`)."""
    name_key, driver_key = f"merge.{DRIVER}.name", f"merge.{DRIVER}.driver"
    # one git process reads them all; a setting is written only when it does not hold its value
    have = config_values(repo, name_key, driver_key, *also)
    want = {name_key: "vault-mem: keep INDEX.md, it is regenerated; merge anything else",
            driver_key: merge_driver([*_driver_paths(have[driver_key]), prefix + INDEX_FILE])}
    for name, value in want.items():
        if have[name] != value:
            try:
                repo.run("config", name, value)
            finally:
                forget_config(repo)
    return {name: have[name] for name in also}


def _quoted(pattern: str) -> str:
    """``pattern`` as a C-quoted attributes pattern whose folder part matches literally (a
    space, quote or glob character in the vault's folder name is that character)."""
    out = []
    for c in pattern:
        if c in '\\*?[]':
            out.append("\\\\" + c)  # C-unquoted to a backslash, which escapes the glob character
        elif c == '"':
            out.append('\\"')
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or c == "\x7f":
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _tag(prefix: str) -> str:
    """The vault's name in its block's first and last lines (one line, whatever the folder)."""
    folder = prefix.rstrip("/")
    return _quoted(folder) if folder else "."


def attributes_block(prefix: str) -> str:
    """The lines vault-mem keeps in ``info/attributes`` for the vault at ``prefix`` (its folder
    in the repository, ``""`` at the top, else like ``memory/``)."""
    folder = prefix.rstrip("/")
    every = _quoted(f"/{folder}/")[:-1] + '**"' if folder else "*"
    index = _quoted(f"/{folder}/{INDEX_FILE}" if folder else f"/{INDEX_FILE}")
    return "\n".join([
        f"{_BEGIN} {_tag(prefix)} (written by vault-mem, rewritten by `vault-mem hooks install`):",
        "# git treats the vault's files as plain files, whatever a .gitattributes says",
        f"{every} " + " ".join(f"!{name}" for name in NEUTRAL),
        f"{index} merge={DRIVER}",
        f"{_END} {_tag(prefix)}",
    ]) + "\n"


def exclude_block(prefix: str) -> str:
    """The lines vault-mem keeps in ``info/exclude`` for the vault at ``prefix``: its state folder,
    so git never offers it to a commit whatever the vault's ``.gitignore`` says (a teammate's
    commit deleting ``memory/.gitignore`` made the person's ``git add -A`` stage index.db, every
    memory's text). "" for a folder name no ignore pattern can hold (a line end)."""
    folder = prefix.rstrip("/")
    if "\n" in folder or "\r" in folder:
        return ""
    pattern = f"/{glob_escaped(folder)}/{STATE_DIR}/" if folder else f"/{STATE_DIR}/"
    return "\n".join([
        f"{_BEGIN} {_tag(prefix)} (written by vault-mem, rewritten by `vault-mem hooks install`):",
        "# vault-mem's derived state is never committed, whatever a .gitignore says",
        pattern,
        f"{_END} {_tag(prefix)}",
    ]) + "\n"


def protect_attributes(repo: GitRepo, prefix: str) -> bool:
    """Write or refresh the vault's block in ``info/attributes`` (at the end: later lines win),
    keeping every other line; True when the file changed."""
    return _keep_block(Path(repo.info_attributes), prefix, attributes_block(prefix))


def protect_exclude(repo: GitRepo, prefix: str) -> bool:
    """Write or refresh the vault's block in ``info/exclude`` (:func:`exclude_block`), beside
    ``info/attributes``; True when the file changed."""
    block = exclude_block(prefix)
    return _keep_block(Path(repo.info_attributes).with_name("exclude"), prefix, block) if block else False


def _keep_block(path: Path, prefix: str, block: str) -> bool:
    """Write ``block`` (the vault at ``prefix``'s) at the end of the git file ``path``, in place of
    the one written before, keeping every other line; True when the file changed."""
    data = current_bytes(path)
    text = data.decode("utf-8", "replace") if data is not None else ""
    tag = _tag(prefix)
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith(f"{_BEGIN} {tag} "):
            inside = True
        elif inside and line.rstrip("\n") == f"{_END} {tag}":
            inside = False
        elif not inside:
            kept.append(line)
    own = "".join(kept)
    if own and not own.endswith("\n"):
        own += "\n"
    new = own + block
    if new == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, new.encode("utf-8"))
    return True


def protect(repo: GitRepo, prefix: str, *also: str) -> dict[str, str]:
    """Both layers (module docstring): the path-safe driver and the attributes block. Returns
    the git config values of the names ``also``, read with the driver's (one git process)."""
    values = ensure_index_merge_driver(repo, *also, prefix=prefix)
    protect_attributes(repo, prefix)
    protect_exclude(repo, prefix)
    return values
