"""Vault hygiene: what to prune (``review``), leaked credentials (``scan``), dead paths
(``check_refs``) and duplicates (``dupes``). Each returns plain dicts for the CLI and tools.

Nothing here writes a memory file or commits: every finding says what a person (or the agent)
should do, and the fix goes through the ordinary write paths (``remember``, ``forget``,
``resolve``) or, for a credential in history, through a history rewrite the person runs.
Queries on the sidecar are read-only and use bound parameters.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from vault_mem.config import FOLDER_TYPES, TYPE_FOLDERS, is_state_dir_name
from vault_mem.errors import UsageError, VaultMemError, for_person
from vault_mem.index import dupes as dupes_mod
from vault_mem.index import queries
from vault_mem.index.search import age_and_flags
from vault_mem.model import policy
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import as_str_list, validate_type
from vault_mem.model.names import quoted
from vault_mem.store import history as git_history  # not `history`: scan() has a flag of that name
from vault_mem.store.files import check_type_folder, current_bytes
from vault_mem.store.worktree import checkout_files
from vault_mem.vault.conflicts import list_conflicts
from vault_mem.vault.core import Vault

__all__ = ["check_refs", "dupes", "quarantined", "review", "scan"]

# ------------------------------------------------------------------------------- quarantine


def quarantined(vault: Vault) -> list[dict[str, Any]]:
    """Memory files kept out of INDEX.md, recall and commits because they hold a credential
    (the sidecar's quarantined problem rows; see ``model/policy.py``), as the sidecar knows them
    now: one item per file with ``path``, ``findings`` (``field``, ``kind``, ``line`` each; never
    a value), ``in_history`` (HEAD's version holds a credential too: a peer's commit, or one
    made past the pre-commit hook) and ``fix`` (what to do, with the purge recipe when it is in
    history)."""
    out: list[dict[str, Any]] = []
    head = vault.repo.head()
    for p in vault.sidecar.problems():
        if not p.quarantined:
            continue
        try:
            data = vault.ws.read_bytes(p.path)  # the one safe reader: never through a link
        except VaultMemError:
            continue  # gone or replaced since: the next reconcile drops or re-judges the row
        found = policy.file_secrets(p.path, data)
        if not found:
            continue  # fixed since the sidecar last looked
        top = vault.prefix + p.path
        blob = vault.repo.blob_at(head, top)
        in_history = blob is not None and bool(
            blob == vault.repo.blob_id(data) or policy.file_secrets(p.path, vault.repo.read_object(blob)[1]))
        out.append({"path": p.path, "key": PurePosixPath(p.path).stem, "in_history": in_history,
                    "findings": [{"field": f, "kind": k, "line": ln} for f, k, ln in found],
                    "fix": policy.fix_recipe(p.path, top=top, in_history=in_history)})
    return out


def describe_quarantined(item: dict[str, Any]) -> str:
    """One line for a :func:`quarantined` item: the file, what it holds where, and the fix."""
    what = policy.describe_secrets([(f["field"], f["kind"], f["line"]) for f in item["findings"]])
    return (f"{item['path']} holds {what}; it is quarantined (not listed in INDEX.md, "
            f"searchable, shown or committed). {item['fix']}")


# ------------------------------------------------------------------------------------ review

_FLAG_ORDER = ("secret", "conflict", "problem", "expired", "superseded", "stale")


def review(vault: Vault, *, today: dt.date | None = None, type: str | None = None,
           flag: str | None = None) -> list[dict[str, Any]]:
    """Memories to prune or settle: files holding a credential (flag ``secret``: quarantined,
    with the fix and, when a commit holds it, the purge recipe), sync conflicts, unreadable
    files, expired, superseded and stale memories, one item per memory (its most pressing flag
    first).

    Each item: ``flag``, ``key``, ``detail`` (what it is and what to do), ``flags`` (all that
    apply), ``type``, ``path``, ``date`` and ``age_days`` where known, ``author`` and whether it is
    ``trusted`` here. ``type`` keeps the items of
    one memory type (by the file's folder where the memory could not be read); ``flag`` those
    with that flag among their flags (``stale`` lists a stale memory that is superseded too).
    """
    if flag is not None and flag not in _FLAG_ORDER:
        raise UsageError(f"unknown review flag '{flag}': use one of {', '.join(_FLAG_ORDER)}")
    if type is not None:
        validate_type(type)
    today = today or dt.date.today()
    vault.reconcile()
    items: list[dict[str, Any]] = []
    for c in list_conflicts(vault, vault.authors):
        # the sentence names a peer's email marked for its reader (resolve's refusal says it to an
        # agent by its kind): review prints it, so the person's reading, never the marks (inj32)
        items.append({"flag": "conflict", "key": c["key"], "detail": for_person(c["detail"]), "flags": ["conflict"],
                      "type": None, "path": c.get("path"), "other_path": c.get("other_path"),
                      "date": None, "age_days": None})
    held = quarantined(vault)
    for q in held:
        items.append({"flag": "secret", "key": q["key"], "flags": ["secret"], "type": None, "path": q["path"],
                      "date": None, "age_days": None, "findings": q["findings"], "in_history": q["in_history"],
                      "detail": describe_quarantined(q)})
    for p in vault.sidecar.problems():
        if p.quarantined:
            continue  # listed above with its fix, or fixed since the sidecar last looked
        key = PurePosixPath(p.path).stem
        items.append({"flag": "problem", "key": key, "flags": ["problem"], "type": None, "path": p.path,
                      "date": None, "age_days": None,
                      "detail": f"{quoted(p.path)}: {p.reason}; fix the file by hand (see `vault-mem doctor`)"})
    # a peer's supersedes marks nothing superseded: "forget KEY" for a look-alike of a peer's
    superseders = queries.superseders(vault.sidecar.db, today=today, distrusted=vault.untrusted_superseders())
    stale_after = vault.config.stale_after_days
    for r in queries.usable_files(vault.sidecar.db):
        key, type_, path, expires = r["key"], r["type"], r["path"], r["expires"]
        date, age, flags = age_and_flags(r, today=today, stale_after=stale_after, superseded=key in superseders)
        # most pressing first; a conflict copy is listed above, from list_conflicts
        flags = sorted((f for f in flags if f != "conflict"), key=_FLAG_ORDER.index)
        limit = stale_after.get(type_)
        if not flags:
            continue
        detail = {
            "expired": f"expired on {expires} and is hidden from recall and INDEX.md; "
                       f"`vault-mem forget {key}`, or remember it with a later --expires if it still applies",
            "superseded": f"superseded by {', '.join(superseders.get(key, []))} and hidden from recall and "
                          f"INDEX.md; `vault-mem forget {key}` once its successor says all that still matters",
            "stale": f"last updated {age} days ago (a {type_} is stale after {limit} days) and shown as "
                     f"'may be outdated'; if it still holds, update it (`vault-mem remember {key} ...` with "
                     f"the current text; an identical write changes nothing), else `vault-mem forget {key}`",
        }[flags[0]]
        if len(flags) > 1:
            detail += f" (also {', '.join(flags[1:])})"
        items.append({"flag": flags[0], "key": key, "detail": detail, "flags": flags, "type": type_,
                      "path": path, "date": date, "age_days": age})
    for item in items:
        if item["type"] is None and item.get("path"):
            item["type"] = FOLDER_TYPES.get(str(item["path"]).split("/", 1)[0])
    items = [i for i in items if (type is None or i["type"] == type) and (flag is None or flag in i["flags"])]
    # whose each memory is, as list and recall say it: a key is text its writer chose, and an
    # agent runs review through its shell as readily as list (inj23: a peer's sentence of a key
    # led its line and stood in vault-mem's advice unmarked)
    who = vault.authors([i["path"] for i in items if i.get("path")], check_disk=False) if items else {}
    for item in items:
        found = who.get(item.get("path") or "")
        item["author"], item["trusted"] = (found.email, found.trusted) if found else (None, True)
    items.sort(key=lambda i: (_FLAG_ORDER.index(i["flag"]), i["key"]))
    return items


# -------------------------------------------------------------------------------------- scan

#: Files of a vault besides the memories that end up in commits and may hold a pasted value.
_VAULT_FILES = (INDEX_FILE, "README.md", "vault.toml")
_MAX_SCAN_BYTES = 1024 * 1024
#: the largest version in history ``scan --history`` reads: past the file size limit's highest
#: setting (16 MB) and any INDEX.md vault-mem renders, so only a file no vault-mem wrote is left
#: unread (a peer's padding: its first bytes are not scanned)
_MAX_HISTORY_BLOB = 32 * 1024 * 1024


def scan(vault: Vault, *, history: bool = False) -> list[dict[str, Any]]:
    """Suspected credentials in the vault: every memory file (all fields) plus INDEX.md,
    README.md and vault.toml in the working tree; with ``history`` also every version of
    those files and every commit message in the git history (all refs and the reflog).

    Each finding: ``where`` (file, or commit and file), ``kind``, ``field``, ``line``, ``path``,
    ``commit`` (history only) and ``how_to_purge``. A value is never reported.
    """
    findings = list(_scan_worktree(vault))
    if history:
        findings.extend(_scan_history(vault))
    return findings


def _scan_worktree(vault: Vault) -> Iterator[dict[str, Any]]:
    rels = [name for name in _VAULT_FILES if (vault.root / name).is_file()]
    for folder in TYPE_FOLDERS.values():
        try:
            names = sorted(os.listdir(vault.root / folder))
        except OSError:
            continue
        rels.extend(f"{folder}/{n}" for n in names if n.endswith(".md"))
    for rel in rels:
        try:
            if "/" in rel:
                check_type_folder(vault.root, rel)  # a linked type folder leads outside the vault
            # never through a link, never whole: a file a commit gave may be any size
            data = current_bytes(vault.root / rel, max_bytes=_MAX_SCAN_BYTES)
        except (OSError, VaultMemError):
            continue
        if data is None:
            continue
        for field, kind, line in _findings_in(data, rel):
            yield {"where": rel, "path": rel, "commit": None, "kind": kind, "field": field, "line": line,
                   "how_to_purge": _purge_worktree(vault, rel)}


def _findings_in(data: bytes, rel: str) -> list[tuple[str, str, int | None]]:
    """(field, kind, line in the file) for each suspected credential in one file's bytes: the
    gate's own rule (the quarantine's too), so scan, gate and quarantine agree on what counts."""
    if "/" not in rel:  # INDEX.md, README.md, vault.toml: plain text, no memory fields
        text = data.decode("utf-8", "replace")
        return list(dict.fromkeys(("file", f.kind, text.count("\n", 0, f.start) + 1)
                                  for f in policy.find_secrets(text)))
    return policy.file_secrets(rel, data)


def _purge_worktree(vault: Vault, rel: str) -> str:
    top = vault.prefix + rel
    key = PurePosixPath(rel).stem
    if rel == INDEX_FILE:
        fix = ("fix the memory it comes from (INDEX.md is generated from the memory files and "
               "follows at the next write or `vault-mem index --write`)")
    elif "/" in rel:
        fix = (f"write the memory again without it (`vault-mem remember {key} ...`), edit {rel} by "
               f"hand, or `vault-mem forget {key}`")
    else:
        fix = f"edit {rel} by hand"
    return (f"Treat the credential as leaked: revoke or rotate it first. Then remove it: {fix}. If "
            f"{top} was ever committed the value is still in git history: run `vault-mem scan --history` "
            "and purge those hits too.")


def _purge_history(top: str, *, message: bool = False) -> str:
    return policy.purge_recipe(top, message=message)


def _scan_history(vault: Vault) -> Iterator[dict[str, Any]]:
    """Each version of each vault file in any commit, scanned once per blob, reported at the
    oldest commit that introduced it; plus commit messages of commits touching the vault."""
    repo = vault.repo
    scope = vault.prefix.rstrip("/") or "."
    introduced: dict[tuple[str, str], str] = {}  # (blob, top path) -> oldest commit seen
    commits: dict[str, None] = {}  # touching the vault, in log order
    for commit, changes in git_history.blob_versions(repo, scope):
        commits[commit] = None
        for blob, path in changes:
            if _is_vault_file(path, vault.prefix):
                introduced[(blob, path)] = commit  # log runs newest first: the last one wins
    # one version held at a time, none over _MAX_HISTORY_BLOB read at all: a peer's six 100 MB
    # versions of INDEX.md (a push of 3 MB, taken by a plain `git pull`) were all read into
    # memory at once (1.2 GB)
    sizes = git_history.blob_sizes(repo, sorted({b for b, _ in introduced}))
    wanted = sorted({b for b, _ in introduced if sizes.get(b, _MAX_HISTORY_BLOB + 1) <= _MAX_HISTORY_BLOB})
    where: dict[str, list[tuple[str, str]]] = {}
    for (blob, top), commit in sorted(introduced.items(), key=lambda x: (x[0][1], x[1])):
        where.setdefault(blob, []).append((top, commit))
    found = []
    for blob, (_kind, data) in zip(wanted, repo.read_objects(wanted)):
        for top, commit in where[blob]:
            rel = top[len(vault.prefix):]
            found.extend({"where": f"{commit[:10]} {top}", "path": top, "commit": commit, "kind": kind,
                          "field": field, "line": line, "how_to_purge": _purge_history(top)}
                         for field, kind, line in _findings_in(data[:_MAX_SCAN_BYTES], rel))
    # in the order they were found before: by path, then commit
    yield from sorted(found, key=lambda f: (f["path"], f["commit"]))
    if not vault.prefix:  # the vault's own repository: every commit message is the vault's
        commits = dict.fromkeys(git_history.all_commits(repo))
    for commit, message in git_history.commit_messages(repo, list(commits)):
        for f in policy.find_secrets(message):
            yield {"where": f"{commit[:10]} (commit message)", "path": None, "commit": commit,
                   "kind": f.kind, "field": "commit message",
                   "line": message.count("\n", 0, f.start) + 1,
                   "how_to_purge": _purge_history("", message=True)}


def _is_vault_file(top: str, prefix: str) -> bool:
    if not top.startswith(prefix):
        return False
    rel = top[len(prefix):]
    parts = rel.split("/")
    if len(parts) == 1:
        return rel in _VAULT_FILES
    return len(parts) == 2 and parts[0] in TYPE_FOLDERS.values() and parts[1].endswith(".md")


# -------------------------------------------------------------------------------- check_refs

# `inline code` on one line; fenced blocks are taken out first (they hold commands, not refs).
_FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINE_SUFFIX = re.compile(r"(?::\d+(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)$")
#: Extensions a slash-less token must have to count as a file name (``os.path`` does not).
_FILE_EXTS = frozenset({
    "md", "markdown", "rst", "txt", "py", "pyi", "ipynb", "js", "mjs", "cjs", "ts", "tsx", "jsx",
    "json", "jsonc", "toml", "yaml", "yml", "ini", "cfg", "conf", "sh", "bash", "zsh", "fish",
    "ps1", "bat", "rs", "go", "java", "kt", "kts", "scala", "rb", "php", "c", "h", "cc", "cpp", "hpp",
    "cs", "swift", "dart", "lua", "pl", "sql", "html", "htm", "css", "scss", "sass",
    "less", "vue", "svelte", "xml", "csv", "tsv", "lock", "gradle", "properties", "mk", "cmake",
    "proto", "graphql", "gql", "tf", "tfvars", "hcl", "nix", "dockerfile", "gitignore", "gitattributes",
    "editorconfig", "pem", "crt", "svg", "png", "jpg", "jpeg", "gif", "pdf", "ex", "exs", "erl", "hs",
    "clj", "elm", "zig", "jl", "vim"
})
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", "dist", "build", "target"})


def body_paths(body: str) -> list[str]:
    """Backticked tokens in ``body`` that look like repository paths.

    A token counts when it has no spaces, is not a URL, option, variable, absolute or home path,
    and either holds a slash and ends in a file name with an extension or in ``/``, or has no
    slash and ends in a known file extension (``config.toml``, not ``os.path``)."""
    text = _FENCED.sub("", body or "")
    out: list[str] = []
    for m in _INLINE.finditer(text):
        token = _LINE_SUFFIX.sub("", m.group(1).strip())
        if _looks_like_path(token) and token not in out:
            out.append(token)
    return out


def _looks_like_path(token: str) -> bool:
    if not token or len(token) > 300 or any(c.isspace() for c in token):
        return False
    if "://" in token or token.startswith(("www.", "-", "$", "~", "/", "@", "%")) or "@" in token:
        return False
    if any(c in token for c in "<>{}()|;&=\"'$`,") or token in ("/", "./", "../"):
        return False
    last = token.rstrip("/").rsplit("/", 1)[-1]
    if "/" in token:
        if token.endswith("/"):
            return bool(last)
        stem, dot, ext = last.rpartition(".")
        return bool(dot and stem and ext and any(c.isalpha() for c in ext) and len(ext) <= 12)
    if last.startswith(".") and last.count(".") == 1:  # a dotfile: .env, .gitignore
        return last[1:] in _FILE_EXTS or last[1:] in ("env", "envrc", "npmrc", "dockerignore")
    stem, dot, ext = last.rpartition(".")
    return (bool(dot and stem) and ext in _FILE_EXTS) or last in ("Dockerfile", "Makefile", "Justfile")


def check_refs(vault: Vault, repo_dir: Path) -> list[dict[str, Any]]:
    """Every memory that names a path missing from the checkout at ``repo_dir``.

    ``refs:`` entries in frontmatter are paths from the checkout's root (``./`` optional, a
    trailing ``:12`` or ``#L12`` line pointer ignored, globs allowed); URLs and paths outside
    the checkout (absolute, ``~``, ``..``) are skipped, as there is nothing to check them against. Backticked paths in a body
    are a heuristic (see :func:`body_paths`) and so judged leniently: one with a slash also counts
    as present when some path in the checkout ends with it, and a bare file name when a file of
    that name exists anywhere in it. Each item: ``key``, ``ref``, ``path`` (the memory's file),
    ``source`` (``refs`` or ``body``), ``author`` and ``trusted`` (whose memory names it).
    """
    repo = Path(repo_dir).expanduser()
    if not repo.is_dir():
        raise UsageError(f"--repo {repo_dir}: no such directory; pass the path of a project checkout")
    repo = repo.resolve()
    vault.reconcile()
    tree: _Tree | None = None
    missing: list[dict[str, Any]] = []
    for key, rel in sorted((e["key"], e["path"]) for e in vault.sidecar.list_entries()):
        try:
            mem = vault.read_memory(rel)
        except VaultMemError:
            continue  # `vault-mem review` and `doctor` report unreadable files
        for ref in as_str_list(mem.meta.get("refs")):
            clean = _LINE_SUFFIX.sub("", ref.strip()).removeprefix("./")
            if not _in_checkout(clean):
                continue  # a URL, or a path outside the checkout: nothing to check it against
            if any(c in clean for c in "*?["):
                tree = tree or _Tree.load(repo)
                present = tree.matches(clean)
            else:
                present = os.path.lexists(repo / clean)
            if not present:
                missing.append({"key": key, "ref": ref, "path": rel, "source": "refs"})
        for token in body_paths(mem.body):
            clean = token.removeprefix("./")
            if _exists(repo, clean):
                continue
            tree = tree or _Tree.load(repo)
            if not tree.has(clean):
                missing.append({"key": key, "ref": token, "path": rel, "source": "body"})
    # whose memory names it: a reference is text its writer chose, a peer's among them (atk23)
    who = vault.authors(sorted({m["path"] for m in missing}), check_disk=False) if missing else {}
    for m in missing:
        m["author"], m["trusted"] = who[m["path"]].email, who[m["path"]].trusted
    return missing


def _in_checkout(ref: str) -> bool:
    return bool(ref) and "://" not in ref and not ref.startswith(("/", "~", "$")) \
        and ".." not in PurePosixPath(ref).parts and not re.match(r"[A-Za-z]:[\\/]", ref)


def _exists(repo: Path, rel: str) -> bool:
    return os.path.lexists(repo / rel)


#: Most distinct glob ``refs:`` one check evaluates (each is one pass over the checkout's paths);
#: past it a glob counts as present: what a vault's own memories name is far fewer
MAX_GLOBS = 1000


def _glob_match(pattern: list[str], path: list[str]) -> bool:
    """Whether ``path``'s parts match ``pattern``'s: ``**`` takes any number of parts, any other
    part is matched with :func:`fnmatch.fnmatchcase` against one. Table by table from the ends
    (each cell once), so no pattern backtracks."""
    m, n = len(pattern), len(path)
    later = [False] * n + [True]  # row m: only the end of the path is matched by nothing
    for i in range(m - 1, -1, -1):
        row = [False] * (n + 1)
        for j in range(n, -1, -1):
            if pattern[i] == "**":
                row[j] = later[j] or (j < n and row[j + 1])
            else:
                row[j] = j < n and later[j + 1] and fnmatch.fnmatchcase(path[j], pattern[i])
        later = row
    return later[0]


class _Tree:
    """Every file and folder path of a checkout (git's list when it is one), for suffix lookups."""

    def __init__(self, paths: set[str]):
        self.paths = paths  # files, and folders with a trailing slash
        self.names = {p.rstrip("/").rsplit("/", 1)[-1] for p in paths}
        self.globs: dict[str, bool] = {}

    def matches(self, pattern: str) -> bool:
        """Whether some path of the checkout matches the glob ``pattern`` as ``Path.glob`` reads
        it (``*`` within one folder, ``**`` any number of folders, none included). Matched
        against the path list, never by walking the disk: ``Path.glob`` took time exponential in
        a pattern's ``**`` (``**/**/**/**/**/x`` ran 40 s on a small checkout, and a memory may
        list 64 such refs); :func:`_glob_match` is linear in each path's folders times the
        pattern's parts. One pass per distinct pattern, at most :data:`MAX_GLOBS` of them."""
        if pattern not in self.globs:
            if len(self.globs) >= MAX_GLOBS:
                return True
            parts = pattern.strip("/").split("/")
            self.globs[pattern] = any(_glob_match(parts, p.rstrip("/").split("/")) for p in self.paths)
        return self.globs[pattern]

    @classmethod
    def load(cls, repo: Path) -> _Tree:
        files = checkout_files(repo)
        if files is None:  # not a git checkout: every file but the usual build and tool folders
            files = []
            for dirpath, dirnames, filenames in os.walk(repo):
                dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not is_state_dir_name(d)]
                base = os.path.relpath(dirpath, repo).replace(os.sep, "/")
                files.extend(f if base == "." else f"{base}/{f}" for f in filenames)
        paths: set[str] = set()
        for f in files:
            parts = f.split("/")
            paths.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
            paths.add(f)
        return cls(paths)

    def has(self, rel: str) -> bool:
        """``rel`` exactly, a path ending in ``/rel``, or for a bare name any file or folder so named."""
        if rel in self.paths:
            return True
        if "/" not in rel.rstrip("/"):
            return rel.rstrip("/") in self.names
        return any(p.endswith("/" + rel) for p in self.paths)


# ------------------------------------------------------------------------------------- dupes


def dupes(vault: Vault, *, today: dt.date | None = None) -> list[dict[str, Any]]:
    """Likely duplicate pairs across the vault (see :mod:`vault_mem.index.dupes`): ``a``, ``b``,
    ``similarity``, ``cosine`` and both descriptions, most similar first; and whose each side is
    (``a_trusted``, ``a_author``: the email of a peer not approved here, else None): a peer's
    look-alike of the person's memory is one of a pair, and the side a cleanup forgets must not
    be chosen blind."""
    vault.reconcile()
    pairs = dupes_mod.duplicate_pairs(vault.sidecar, today=today)
    if pairs:
        peers = {PurePosixPath(rel).stem: who for rel, who in vault.peer_memories().items()}
        for pair in pairs:
            for side in ("a", "b"):
                who = peers.get(pair[side])
                pair[f"{side}_trusted"], pair[f"{side}_author"] = who is None, who.email if who else None
    return pairs
