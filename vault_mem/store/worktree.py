"""The work tree, git's staging area, and the repository's settings and upkeep, as the daemon,
the hooks and ``check-refs`` need them.

Every function runs git only through ``repo.run`` of a :class:`~vault_mem.store.git.GitRepo`, so
the store layer stays the one place git is run (DESIGN §6). Paths are relative to the
repository's top level (git's own form) unless a docstring says otherwise; a command runs there.

The staging-area functions are the pre-commit hook's: they inherit the hook's environment
(``GIT_INDEX_FILE`` and friends, as git set them), so they read and write the index the commit
is being made from, which may be a temporary one (``git commit PATH``).
"""

from __future__ import annotations

import os
import re
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.git import GitRepo
from vault_mem.store.gitfind import base_config_files
from vault_mem.platform import settle

__all__ = [
    "as_committed", "checkout_files", "checkout_staged", "config_files_in_vault", "config_in_vault_notice", "config_value", "config_files", "config_values", "forget_config", "dirty_files", "dirty_paths", "index_marks", "same_as_committed", "gc_auto", "ignored_paths",
    "read_staged", "stage_bytes", "stage_paths", "staged_blob", "staged_blobs", "staged_changes", "staged_files",
    "staged_listing", "unstaged_paths",
    "untracked_paths",
]


def _paths(out: bytes) -> list[str]:
    # surrogateescape: a path that is not UTF-8 survives the round trip back into git unchanged
    return [p for p in out.decode("utf-8", "surrogateescape").split("\x00") if p]


def _encode(paths: Iterable[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\x00" for p in paths)


# -- the work tree -----------------------------------------------------------------------------

#: an ``ident`` keyword as git expands it on checkout (``$Id: <blob id> $``)
_IDENT = re.compile(rb"\$Id: [0-9a-f]{40,64} \$")


def as_committed(data: bytes) -> bytes:
    """``data`` with what git may change on checkout undone: CRLF line ends (``eol=crlf``,
    ``text``, ``core.autocrlf``) back to LF, expanded ``$Id: ...$`` keywords (``ident``) back
    to ``$Id$``."""
    return _IDENT.sub(b"$Id$", data.replace(b"\r\n", b"\n"))


def same_as_committed(repo: GitRepo, data: bytes, blob: str | None) -> bool:
    """Whether a work-tree file holding ``data`` is the committed ``blob`` as git checked it
    out, changed by no one here. A checkout converts bytes by attributes that a fresh clone or a
    plain ``git pull`` takes from a peer's ``.gitattributes`` (``* text eol=crlf``) or by the
    person's ``core.autocrlf`` (Git for Windows' default): such a file differs from its blob,
    yet it is the peer's text, not an edit made on this machine (DESIGN §7: what differs from
    HEAD is taken for this machine's person's word)."""
    if blob is None:
        return False
    if GitRepo.blob_id(data) == blob:
        return True
    undone = as_committed(data)
    if undone == data:
        return False
    return GitRepo.blob_id(undone) == blob or as_committed(repo.read_object(blob)[1]) == undone

def dirty_paths(repo: GitRepo, pathspecs: list[str]) -> set[str]:
    """Files under ``pathspecs`` that differ from HEAD or are untracked (not ignored), per
    ``git status``; an empty set when git status fails. Takes no lock (``GIT_OPTIONAL_LOCKS=0``):
    a background reader must never make a person's git command wait or fail."""
    found = _status(repo, pathspecs)
    return set() if found is None else found


def dirty_files(repo: GitRepo, paths: list[str]) -> set[str] | None:
    """Of the files ``paths`` (top-level, each a literal path, not a pattern), those
    :func:`dirty_paths` names: the same rule, asked of these files alone. None when git
    status fails."""
    return _status(repo, paths, literal=True)


def index_marks(repo: GitRepo, pathspec: str) -> tuple[set[str], set[str]]:
    """``(staged, marked)`` under ``pathspec`` (top-level paths): the files whose staged version
    differs from HEAD's (``git diff-index --cached``), and those git's index marks to be
    treated apart (``git ls-files -v``: assume-unchanged, skip-worktree). Besides HEAD's version
    and the work tree's bytes, this is all ``git status`` reads of a file: a file in neither
    set, whose HEAD version and bytes stayed, keeps its answer. No lock taken."""
    env = {"GIT_OPTIONAL_LOCKS": "0"}
    staged = repo.run("diff-index", "--cached", "--name-only", "-z", "--no-renames", "HEAD", "--", pathspec,
                      binary=True, cwd=repo.toplevel, env=env)
    listing = repo.run("ls-files", "-v", "-z", "--", pathspec, binary=True, cwd=repo.toplevel, env=env)
    return ({p.decode("utf-8", "replace") for p in staged.split(b"\x00") if p},
            {e[2:].decode("utf-8", "replace") for e in listing.split(b"\x00") if e and not e.startswith(b"H ")})


def _status(repo: GitRepo, pathspecs: list[str], *, literal: bool = False) -> set[str] | None:
    proc = repo.run(*(["--literal-pathspecs"] if literal else []), "status", "--porcelain=v1", "-z",
                    "--untracked-files=all", "--no-renames", "--", *pathspecs, check=False, cwd=repo.toplevel,
                    env={"GIT_OPTIONAL_LOCKS": "0"})
    if proc.returncode != 0:
        return None
    # each entry is "XY path"; --no-renames means no second path follows an entry
    entries = [e for e in proc.stdout.decode("utf-8", "replace").split("\x00") if len(e) > 3]
    head = repo.head() if any(e[:2] == " M" for e in entries) else None
    return {e[3:] for e in entries if e[:2] != " M" or not _checkout_only(repo, head, e[3:])}


def _checkout_only(repo: GitRepo, head: str | None, top: str) -> bool:
    """Whether the tracked file ``top``, changed in the work tree only, differs from HEAD's only
    by what a checkout converts (:func:`same_as_committed`): not a change made here."""
    path = Path(repo.toplevel) / top
    try:
        if path.is_symlink():
            return False
        data = path.read_bytes()
    except OSError:
        return False
    if b"\r\n" not in data and b"$Id: " not in data:
        return False  # the usual edit: nothing a checkout converts, no lookup
    return same_as_committed(repo, data, repo.blob_at(head, top))


def ignored_paths(repo: GitRepo, paths: list[str]) -> set[str]:
    """Those of ``paths`` that .gitignore (or info/exclude) excludes."""
    if not paths:
        return set()
    # check-ignore exits 1 when nothing is ignored: the answer is its output, not its exit code
    proc = repo.run("check-ignore", "-z", "--stdin", check=False, cwd=repo.toplevel,
                    input=b"\x00".join(p.encode() for p in paths) + b"\x00")
    return {p for p in proc.stdout.decode("utf-8", "replace").split("\x00") if p}


def checkout_files(checkout: Path) -> list[str] | None:
    """Every tracked and untracked, not ignored, file of the git checkout at ``checkout``,
    relative to that folder; None when it is not inside a git work tree (or git is missing)."""
    try:
        repo = GitRepo(checkout)
    except VaultMemError:
        return None
    proc = repo.run("ls-files", "-z", "--cached", "--others", "--exclude-standard", check=False,
                    cwd=Path(checkout))
    if proc.returncode != 0:
        return None
    return [f for f in proc.stdout.decode("utf-8", "replace").split("\x00") if f]


# -- the staging area (the pre-commit hook) -------------------------------------------------------
def staged_changes(repo: GitRepo, pathspec: str) -> list[tuple[str, str, str]]:
    """``(status letter, new mode, path)`` of every staged change under ``pathspec``, renames
    seen as a delete and an add."""
    out = repo.run("diff", "--cached", "--raw", "-z", "--no-renames", "--", pathspec, binary=True,
                   cwd=repo.toplevel)
    parts = out.decode("utf-8", "surrogateescape").split("\x00")
    changes = []
    for i in range(0, len(parts) - 1, 2):
        meta, path = parts[i], parts[i + 1]
        if not meta.startswith(":"):
            continue
        fields = meta[1:].split()  # old-mode new-mode old-blob new-blob status
        changes.append((fields[4][0], fields[1], path))
    return changes


def staged_differs_from(repo: GitRepo, pathspec: str, commit: str) -> set[str]:
    """The paths under ``pathspec`` whose staged content differs from ``commit``'s: a staged
    change not among them is that commit's version, as it stands there."""
    out = repo.run("diff", "--cached", "--name-only", "-z", "--no-renames", commit, "--", pathspec, binary=True,
                   cwd=repo.toplevel)
    return {p for p in out.decode("utf-8", "surrogateescape").split("\x00") if p}


def staged_blob(repo: GitRepo, path: str) -> bytes:
    """The staged content of ``path`` (``git cat-file blob :path``)."""
    return repo.run("cat-file", "blob", f":{path}", binary=True, cwd=repo.toplevel)


def staged_blobs(repo: GitRepo, paths: Iterable[str]) -> dict[str, bytes]:
    """The staged contents (stage 0) of ``paths`` (top-level relative), in two git processes
    however many there are: a commit of 1,000 files (a merge stopped on a conflict, an import)
    read each through a ``git cat-file`` of its own, twice, in pre-commit (40 s at load ~17).
    A path not staged is left out."""
    wanted = set(paths)
    if not wanted:
        return {}
    _, ids = staged_listing(repo, sorted({p.rsplit("/", 1)[0] if "/" in p else "." for p in wanted}))
    return read_staged(repo, {path: oid for path, oid in ids.items() if path in wanted})


def staged_listing(repo: GitRepo, folders: list[str]) -> tuple[list[str], dict[str, str]]:
    """Every file in the staging area under ``folders`` (literal paths, top-level relative) as
    ``git ls-files`` lists them (a conflicted file once per stage), and the blob id of each one
    staged whole (stage 0): one git process for both (the pre-commit gate's keys and its reads)."""
    out = repo.run("ls-files", "-s", "-z", "--", *folders, binary=True, cwd=repo.toplevel,
                   env={"GIT_LITERAL_PATHSPECS": "1"})
    listed: list[str] = []
    ids: dict[str, str] = {}
    for entry in out.split(b"\x00"):
        meta, _, raw = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3:
            continue
        path = raw.decode("utf-8", "surrogateescape")
        listed.append(path)
        if fields[2] == b"0":
            ids[path] = fields[1].decode()
    return listed, ids


def read_staged(repo: GitRepo, ids: dict[str, str]) -> dict[str, bytes]:
    """``{path: content}`` of the staged blobs ``ids`` (path -> blob id, :func:`staged_listing`),
    in one ``git cat-file --batch``; a blob git lacks is left out."""
    from vault_mem.store.history import read_blobs  # history's one batch reader

    contents = read_blobs(repo, sorted(set(ids.values())))
    return {path: contents[oid] for path, oid in ids.items() if oid in contents}


def staged_files(repo: GitRepo, pathspecs: list[str]) -> list[str]:
    """Every file in the staging area under ``pathspecs`` (``git ls-files``)."""
    return _paths(repo.run("ls-files", "-z", "--", *pathspecs, binary=True, cwd=repo.toplevel))


def unstaged_paths(repo: GitRepo, pathspecs: list[str]) -> list[str]:
    """Tracked files under ``pathspecs`` whose work-tree content differs from the staged one."""
    return _paths(repo.run("diff", "--name-only", "-z", "--", *pathspecs, binary=True, cwd=repo.toplevel))


def untracked_paths(repo: GitRepo, pathspecs: list[str]) -> list[str]:
    """Untracked, not ignored files under ``pathspecs``."""
    return _paths(repo.run("ls-files", "--others", "--exclude-standard", "-z", "--", *pathspecs,
                           binary=True, cwd=repo.toplevel))


def checkout_staged(repo: GitRepo, paths: list[str], dest: Path) -> None:
    """Write the staged content of ``paths`` under the folder ``dest`` (at their top-level
    relative paths), leaving the work tree alone."""
    if paths:
        repo.run("checkout-index", f"--prefix={dest}/", "-z", "--stdin", input=_encode(paths),
                 binary=True, cwd=repo.toplevel)


def stage_bytes(repo: GitRepo, path: str, data: bytes) -> None:
    """Put ``data`` in the staging area as the regular file ``path``, whatever the work tree holds.

    The new blob is named by nothing until the index names it, and a person's ``git prune
    --expire=now`` (``gc --prune=now``) in between removes it (the pre-commit hook's INDEX.md:
    the person's commit then failed, "invalid object ... for 'INDEX.md'"). Objects before
    names, as for a commit: the blob is written and recorded, staged, then kept (every gc or
    prune running meanwhile is waited for, and what it removed is stored again); a prune that
    starts later reads the index and keeps it."""
    with repo.objects_before_refs() as keep_objects:
        blob = repo.write_object("blob", data)
        repo.run("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", cwd=repo.toplevel)
        keep_objects(None)


def stage_paths(repo: GitRepo, paths: list[str]) -> None:
    """``git add`` ``paths`` from the work tree (given on stdin: any number of them)."""
    if paths:
        repo.run("add", "--pathspec-from-file=-", "--pathspec-file-nul", input=_encode(paths), cwd=repo.toplevel)


# -- settings and upkeep ------------------------------------------------------------------------
#: how long one reading of git's config answers this process's questions (:func:`_config_list`)
CONFIG_REUSE_S = 2.0
#: per repository: (when read, what the files and variables were, {key: [values]}, [(origin, key,
#: value)], the files it named beyond git's own: includes) of the last ``git config --list``
#: (:func:`_config_read`)
_CONFIG: weakref.WeakKeyDictionary[GitRepo, tuple[float, tuple, dict[str, list[str | None]],
                                                  list[tuple[str, str, str | None]], tuple[str, ...]]] = \
    weakref.WeakKeyDictionary()


def _config_sources(repo: GitRepo, also: tuple[str, ...] = ()) -> tuple[tuple, tuple]:
    """What git's config is read from here: ``(path, stat)`` of each file git reads before any
    include (:func:`_base_config_files`) and of ``also`` (the files a reading named: includes),
    and the variables that add to or move it. A ``git config`` write replaces its file (a new
    inode); an edit in place moves its ctime. A change within one clock tick of the reading may
    leave the same stat: a reading is kept at most :data:`CONFIG_REUSE_S` (a command's
    questions), never across commands."""
    return (tuple((path, settle.stamp_at(path)) for path in (*_base_config_files(repo), *also)),
            tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_CONFIG"))))


def _config_read(repo: GitRepo) -> tuple[dict[str, list[str | None]], list[tuple[str, str, str | None]]]:
    """One reading of git's config for this repository (``git config --list -z --show-origin``:
    the same files, includes and ``GIT_CONFIG_*`` as ``--get``): ``{key as --list spells it:
    [values in git's order]}``, None for a name without ``=``, and every entry as ``(origin, key,
    value)``, the origin as git names it (``file:PATH``, PATH relative to the top level or
    absolute; ``command line:``). One git process answers every question a command asks of the
    config within :data:`CONFIG_REUSE_S` while no config file or variable changed (doctor asked
    four, a read three processes); a failed read is not kept.

    The files are stamped before the reading, and the files it names beyond git's own (includes:
    only a reading says which) after it: the reading is kept only when every file stamped before
    is as it was and each one named anew had settled before the reading began (changed more than
    :data:`~vault_mem.platform.settle.SETTLE_NS` before: no edit falls between git's read and its
    stamp unseen); else it answers its own question alone and the next reading, with those files
    stamped before it, is kept (an edit of an included file went unseen for up to 2 s: review).
    A reading that holds an ``includeIf "onbranch:..."`` is stamped by the HEAD file as well (a
    checkout changes what it includes: the other branch's answer stood for up to 2 s), and not
    kept in a reftable repository (its HEAD file does not move)."""
    kept = _CONFIG.get(repo)
    also = kept[4] if kept is not None else ()
    started = time.time_ns()
    sources = _config_sources(repo, also)
    now = time.monotonic()
    if kept is not None and kept[1] == sources and now - kept[0] < CONFIG_REUSE_S:
        return kept[2], kept[3]
    found: dict[str, list[str | None]] = {}
    entries: list[tuple[str, str, str | None]] = []
    proc = repo.run("config", "--list", "-z", "--show-origin", check=False)
    if proc.returncode != 0:
        _CONFIG.pop(repo, None)
        return found, entries
    # with -z each entry is "ORIGIN\0KEY\nVALUE\0" (no newline: a name without "="), unquoted
    parts = proc.stdout.split(b"\x00")
    for i in range(0, len(parts) - 1, 2):
        origin = parts[i].decode("utf-8", "surrogateescape")
        key, nl, value = parts[i + 1].decode("utf-8", "replace").partition("\n")
        found.setdefault(key, []).append(value if nl else None)
        entries.append((origin, key, value if nl else None))
    base = set(_base_config_files(repo))
    named = {_origin_file(repo, origin) for origin, _, _ in entries if origin.startswith("file:")} - base - {""}
    onbranch = any(key.startswith("includeif.onbranch:") for key in found)
    if onbranch:  # what it includes follows the branch checked out: the reading is HEAD's too
        named.add(str(repo.git_dir / "HEAD"))
    named = tuple(sorted(named))
    later = _config_sources(repo, named) if named != also else sources
    before = dict(sources[0])
    # a reftable repository's HEAD file stays as it is at a checkout: nothing kept
    settled = later[1] == sources[1] and not (onbranch and "reftable" in found.get("extensions.refstorage", ())) and all(
        before[path] == st if path in before else st is not None and st.changed_ns < started - settle.SETTLE_NS
        for path, st in later[0])
    _CONFIG[repo] = (now if settled else float("-inf"), later, found, entries, named)
    return found, entries


def _origin_file(repo: GitRepo, origin: str) -> str:
    """The file an origin ``file:PATH`` of ``git config --show-origin`` names (PATH relative to
    the top level, or absolute)."""
    name = origin.partition(":")[2]
    if not name or os.path.isabs(name):
        return name
    return str(Path(repo.toplevel) / name)


def _config_list(repo: GitRepo) -> dict[str, list[str | None]]:
    """Every setting git's config gives this repository (:func:`_config_read`)."""
    return _config_read(repo)[0]


def forget_config(repo: GitRepo) -> None:
    """Drop what :func:`_config_list` keeps of ``repo``'s config: vault-mem just set a value."""
    _CONFIG.pop(repo, None)


def config_value(repo: GitRepo, name: str) -> str:
    """The value of git config ``name`` as this repository sees it, or "" when unset (``git
    config --get``: the last value of a name set more than once; a name without ``=``: "")."""
    values = _config_list(repo).get(_config_key(name))
    return (values[-1] or "").strip() if values else ""


def _config_key(name: str) -> str:
    """``name`` as ``git config --list`` spells it: section and variable name lowercased (git
    compares them so), a subsection (``branch.<name>.remote``) as written."""
    section, _, rest = name.partition(".")
    sub, dot, var = rest.rpartition(".")
    return f"{section.lower()}.{sub}{dot}{var.lower()}"


def config_values(repo: GitRepo, *names: str) -> dict[str, str]:
    """:func:`config_value` of each of ``names``, from one reading of the config: each name
    maps to its value, or "" when unset."""
    return {n: config_value(repo, n) for n in names}


def _bool_setting(repo: GitRepo, name: str) -> bool:
    """``git config --bool --get name`` is ``true``. The plain forms every value of the name
    takes are answered from the one reading (a name without ``=``, ``true``/``yes``/``on``,
    ``false``/``no``/``off``, any case, "", ``0``, ``1``); any other (``1k``, ``0x10``, ``08``,
    a value with spaces) is git's to say, as it was: its rules for numbers (unit suffixes, the
    int range, what it refuses) are not written twice (review)."""
    values = _config_list(repo).get(_config_key(name))
    if not values:
        return False
    plain = {None: True, "true": True, "yes": True, "on": True, "1": True,
             "false": False, "no": False, "off": False, "": False, "0": False}
    if all(v is None or v.lower() in plain for v in values):
        value = values[-1]
        return plain[value.lower() if value is not None else None]
    proc = repo.run("config", "--bool", "--get", name, check=False)
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


#: the most of a config file read for the word "include" (:func:`_base_config_files`)
CONFIG_READ_BYTES = 1 << 20


def _base_config_files(repo: GitRepo) -> list[str]:
    """:func:`~vault_mem.store.gitfind.base_config_files` of ``repo``."""
    return base_config_files(repo.common_dir, repo.git_dir)


def config_files(repo: GitRepo) -> list[str]:
    """The files ``repo``'s config is read from as far as this process knows: git's own before
    any include, and the ones the last reading here named (includes; HEAD's file, where an
    ``includeIf "onbranch:..."`` makes the reading follow the branch), for a cache of what the
    config says to stamp (the identities: :func:`vault_mem.vault.authors.identities`)."""
    kept = _CONFIG.get(repo)
    return [*_base_config_files(repo), *(kept[4] if kept is not None else ())]


#: per config file read for the word "include": (its stat when read, the answer), while it was
#: settled then (:func:`_mentions_include`)
_MENTIONS: dict[str, tuple[tuple, bool]] = {}


def _mentions_include(path: str) -> bool:
    """Whether the first :data:`CONFIG_READ_BYTES` of the config file ``path`` mention an
    include. Kept by the file's stat (:func:`~vault_mem.platform.settle.stamp_at`, through a
    link, as git reads it), as the kept reading of the config is: every command of a long-lived process (the MCP server, the
    daemon) read each of git's config files, up to 1 MB each, again (review of include23); a
    file whose stat is as it was when read is not read. An answer is kept only for a file that
    had settled (:data:`~vault_mem.platform.settle.SETTLE_NS`) before it was read and kept its stat
    across the read: an edit within the clock's tick of the read stays unseen no longer."""
    started = time.time_ns()
    before = settle.stamp_at(path)
    if before is None:
        return False  # nothing there: git reads nothing either
    kept = _MENTIONS.get(path)
    if kept is not None and kept[0] == before:
        return kept[1]
    try:
        with open(path, "rb") as fh:
            found = b"include" in fh.read(CONFIG_READ_BYTES).lower()
    except OSError:
        return False
    if settle.stamp_at(path) == before and before.changed_ns < started - settle.SETTLE_NS:
        if len(_MENTIONS) >= 64:
            _MENTIONS.clear()
        _MENTIONS[path] = (before, found)
    return found


def config_files_in_vault(repo: GitRepo, root: Path) -> list[tuple[Path, str | None]]:
    """The config files git reads, or includes, for this repository that lie in the vault's
    folder ``root`` outside the git folder (symbolic links followed), each with the file whose
    ``include.path``/``includeIf.*.path`` names it (None: git reads it itself, e.g.
    ``GIT_CONFIG_GLOBAL`` or a linked ``.git/config``). Git runs what such a file sets
    (``core.fsmonitor``, ``core.sshCommand``, aliases) at the person's next git command once a
    peer's commit changes it, a plain ``git pull`` included: files of a vault never run
    (DESIGN §7). An include is named whether or not its file exists yet (a peer's push brings
    it) and whatever its condition. No git process unless a config file or ``GIT_CONFIG_*``
    variable mentions an include: then the one reading of the config (:func:`_config_read`)
    says which files were read and which includes name what."""
    top = Path(os.path.realpath(repo.toplevel))
    inside_of, outside_of = Path(os.path.realpath(root)), {Path(os.path.realpath(d)) for d in (repo.git_dir, repo.common_dir)}

    def inside(path: str) -> Path | None:
        if not path:
            return None
        real = Path(os.path.realpath(path if os.path.isabs(path) else top / path))
        if real.is_relative_to(inside_of) and not any(real.is_relative_to(d) for d in outside_of):
            return real
        return None

    base = _base_config_files(repo)
    found: dict[Path, str | None] = {p: None for p in map(inside, base) if p is not None}
    if not (any(map(_mentions_include, base))
            or any("include" in f"{k}={v}".lower() for k, v in os.environ.items() if k.startswith("GIT_CONFIG"))):
        return list(found.items())
    for origin, key, value in _config_read(repo)[1]:
        kind, _, name = origin.partition(":")
        here = inside(name) if kind == "file" and name else None
        if here is not None:
            found.setdefault(here, None)
        lowered = key.lower()
        if not value or not (lowered == "include.path" or (lowered.startswith("includeif.") and lowered.endswith(".path"))):
            continue
        target = os.path.expanduser(value)
        if not os.path.isabs(target):
            if kind != "file" or not name:
                continue  # git refuses a relative include from the command line
            target = os.path.join(os.path.dirname(name if os.path.isabs(name) else top / name), target)
        named = inside(target)
        if named is not None:
            found[named] = str(top / name) if kind == "file" and name else "the command line"
    return list(found.items())


def config_in_vault_notice(repo: GitRepo, root: Path) -> str | None:
    """The one line naming :func:`config_files_in_vault` and the fix, or None."""
    said = config_files_in_vault(repo, root)
    if not said:
        return None
    fixes = [f"remove the include of {path} from {by}" if by else
             f"make git read its configuration from a file outside the vault in place of {path}"
             for path, by in said]
    return (f"git reads its configuration from {', '.join(str(p) for p, _ in said)}, in the vault: a peer's commit "
            "that changes it sets what git runs as you at your next git command (core.fsmonitor, core.sshCommand, "
            f"aliases), a plain `git pull` included; {'; '.join(fixes)} (vault-mem never makes one)")


def index_format_notice(repo: GitRepo) -> str | None:
    """The line that says git's index of this repository is, or is set to be, split
    (``core.splitIndex``) or version 4 (``index.version``, ``feature.manyFiles``), which other
    programs that read a vault's index do not read (bench/bench_index_readers.py, git 2.39,
    libgit2 1.9, GitPython 3.2, isomorphic-git 1): libgit2 refuses a split index, GitPython both,
    isomorphic-git (the git of Obsidian's git plugin on mobile) a v4 one, and it misreads a split
    index and writes it back with every memory staged for deletion. For ``doctor``: vault-mem writes
    under either (it keeps a person's choice) and sets neither; None when neither is in use."""
    # the shared index the index links to; git names a full index that keeps the link with
    # zeros ("sharedindex.000...")
    shared = Path(repo.run("rev-parse", "--shared-index-path", check=False).stdout.decode("utf-8", "replace").strip())
    split = _bool_setting(repo, "core.splitIndex") or shared.name.removeprefix("sharedindex.").strip("0") != ""
    try:
        with open(repo.git_dir / "index", "rb") as fh:
            version = int.from_bytes(fh.read(12)[4:8], "big")
    except OSError:
        version = 0
    v4 = (version == 4 or config_value(repo, "index.version") == "4"
          or (_bool_setting(repo, "feature.manyFiles") and config_value(repo, "index.version") in ("", "4")))
    said = [(what, why, undo) for what, why, undo, on in (
        ("split (core.splitIndex)",
         "libgit2-based clients and GitPython cannot read a split index, and isomorphic-git (Obsidian's git "
         "plugin on mobile) misreads one and writes it back with every memory staged for deletion",
         "git config core.splitIndex false && git update-index --no-split-index", split),
        ("version 4 (index.version, feature.manyFiles)",
         "GitPython and isomorphic-git (Obsidian's git plugin on mobile) cannot read a version 4 index",
         "git config index.version 2 && git config feature.manyFiles false && git update-index --index-version 2",
         v4)) if on]
    if not said:
        return None
    # set off in the vault's own config, not unset: a person's global setting would still hold
    return (f"git's index of this vault is, or is set to be, {' and '.join(s[0] for s in said)}: "
            f"{'; '.join(s[1] for s in said)}; if any of them reads this vault, run "
            f"`{' && '.join(s[2] for s in said)}` in {repo.toplevel}")


def ensure_upstream(repo: GitRepo, branch: str, remote: str, remote_branch: str) -> bool:
    """Make ``remote``/``remote_branch`` the upstream of ``branch`` (``branch.<b>.remote`` and
    ``.merge``) unless it has one already, so a plain ``git pull`` or ``git push`` works; an
    upstream a person set is never changed. True when it was set now."""
    if any(config_values(repo, f"branch.{branch}.remote", f"branch.{branch}.merge").values()):
        return False
    try:
        repo.run("config", f"branch.{branch}.remote", remote)
        repo.run("config", f"branch.{branch}.merge", f"refs/heads/{remote_branch}")
    finally:
        forget_config(repo)
    return True


def gc_auto(repo: GitRepo) -> str | None:
    """``git gc --auto --quiet``: packs loose objects when git thinks enough have piled up (it
    returns at once when nothing is due). Blocks until it is done: run it off any latency path.
    Returns None, or git's complaint when it failed (a failed gc harms nothing; it is retried
    the next time)."""
    proc = repo.run("gc", "--auto", "--quiet", check=False, cwd=repo.toplevel)
    if proc.returncode == 0:
        return None
    return proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
