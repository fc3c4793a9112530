"""Reading memory files for the sidecar: which files a vault holds, and what one file gives.

Separate from :mod:`vault_mem.index.sidecar` because it touches only the file system (never the
database): a scan is one ``scandir`` per type folder with (mtime_ns, size) per file; a read
checks, in order, that the file stays inside the vault, its name, its size, NUL bytes, UTF-8
and the frontmatter, and says which check failed. A file holding a credential is quarantined
(:meth:`~vault_mem.model.policy.WritePolicy.quarantine_reason`, the write gate's own rule): a
problem, and none of its text reaches the sidecar.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import VaultMemError
from vault_mem.platform import settle
from vault_mem.index.folderscan import path_sig, stat_sig
from vault_mem.model.memory import memory_from_bytes
from vault_mem.model.names import after_name
from vault_mem.model.policy import WritePolicy
from vault_mem.store.files import read_memory_bytes
from vault_mem.store.objectid import blob_id


@dataclass
class FileState:
    """What reading one file gave: a parsed memory or a problem."""

    path: str
    key: str
    type: str
    mtime_ns: int
    size: int
    sha256: str = ""
    #: the git blob id of the same bytes ("" when the file was not read): compared with the
    #: committed tree's (:mod:`vault_mem.index.committed`)
    blob: str = ""
    problem: str | None = None
    memory: object | None = None
    #: the file holds a credential: nothing of its text may be kept (not even a last good version)
    quarantined: bool = False


#: the modules whose code decides what the secret gate refuses (tests check none is missing), by
#: name: the fingerprint reads their files without importing them (most processes that open a
#: vault check no text, and the gate's modules are ~20 ms of CPU to import; model/policy.py)
GATE_MODULES = ("vault_mem.model.policy", "vault_mem.model.secrets",
                "vault_mem.model.secret_cards",
                "vault_mem.model.secret_checks",
                "vault_mem.model.secret_codes",
                "vault_mem.model.secret_commands",
                "vault_mem.model.secret_disguises",
                "vault_mem.model.secret_fields",
                "vault_mem.model.secret_judge",
                "vault_mem.model.secret_keys",
                "vault_mem.model.secret_labels",
                "vault_mem.model.secret_names",
                "vault_mem.model.secret_near",
                "vault_mem.model.secret_pairs",
                "vault_mem.model.secret_phrases",
                "vault_mem.model.secret_public",
                "vault_mem.model.secret_places",
                "vault_mem.model.secret_rules",
                "vault_mem.model.secret_text",
                "vault_mem.model.secret_tokens",
                "vault_mem.model.secret_urls",
                "vault_mem.model.secret_values",
                "vault_mem.model.secret_words",
                "vault_mem.model.seed_words", "vault_mem.model.seed_words_other", "vault_mem.model.seed_words_slip39",
                "vault_mem.model.lazy_patterns")


def _module_file(name: str) -> str:
    """The file of module ``name``: the one it was imported from, else the one an import would
    take (found, not run)."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None) or ""
    spec = importlib.util.find_spec(name)
    return (spec.origin or "") if spec is not None else ""


def gate_fingerprint() -> str:
    """A digest of the secret rules this process runs (the code of GATE_MODULES): a sidecar
    that recorded another one re-checks every file, so a rule added since quarantines a file
    indexed before it. Kept while every file's ``stat`` is as it was (a process that reconciles
    again, the daemon or the MCP server, stats its 27 files instead of reading and hashing them)."""
    files = [_module_file(name) for name in GATE_MODULES]
    sigs = tuple(_file_sig(f) for f in files)
    if None not in sigs and _KEPT_FINGERPRINT[0] == sigs:
        return _KEPT_FINGERPRINT[1]
    h = hashlib.sha256()
    read_all = True
    for name, file in zip(GATE_MODULES, files):
        try:
            h.update(Path(file).read_bytes())
        except OSError:
            h.update(name.encode())
            read_all = False
    digest = h.hexdigest()[:16]
    if read_all and None not in sigs:
        _KEPT_FINGERPRINT[:] = [sigs, digest]
    return digest


#: the last (files' stat signatures, digest) :func:`gate_fingerprint` read
_KEPT_FINGERPRINT: list = [None, ""]


def _file_sig(file: str) -> tuple[str, settle.Stamp] | None:
    """What changes when ``file`` is written or replaced (None: it cannot be read)."""
    found = settle.stamp_at(file)
    return None if found is None else (file, found)


def read_file(root: Path, rel: str, *, max_bytes: int, policy: WritePolicy | None = None) -> FileState | None:
    """Read and parse one memory file (``rel`` is vault-relative); None if it no longer exists.

    Read by :func:`vault_mem.store.files.read_memory_bytes`, the reader ``get`` uses too, so the
    index and ``get`` refuse the same files (a symlinked file or type folder, wherever it points;
    a file over the limit): such a file is a problem, never read. With ``policy``, a file
    holding a credential (parsed or not) is a problem too, marked ``quarantined``."""
    folder, name = rel.split("/", 1)
    state = FileState(path=rel, key=name[:-3], type=FOLDER_TYPES[folder], mtime_ns=-1, size=-1)
    sig = path_sig(root / rel)
    if sig is None:
        return None
    state.mtime_ns, state.size = sig
    try:
        read = read_memory_bytes(root, rel, max_bytes=max_bytes)
    except VaultMemError as exc:
        state.problem = after_name(str(exc), rel)
        if "invalid key" in state.problem:
            state.problem += " (rename the file)"
        return state
    if read is None:
        return None
    data, st = read
    state.mtime_ns, state.size = stat_sig(st)
    return parse_state(state, data, max_bytes=max_bytes, policy=policy)


def state_from_bytes(rel: str, data: bytes, *, max_bytes: int, policy: WritePolicy | None = None) -> FileState:
    """What reading ``rel`` would give if it held ``data`` (a version from a git tree)."""
    folder, name = rel.split("/", 1)
    state = FileState(path=rel, key=name[:-3], type=FOLDER_TYPES[folder], mtime_ns=-1, size=len(data))
    return parse_state(state, data, max_bytes=max_bytes, policy=policy)


def parse_state(state: FileState, data: bytes, *, max_bytes: int, policy: WritePolicy | None = None) -> FileState:
    """Fill in ``state`` from the file's bytes: its hash and the parsed memory, or a problem
    (with ``policy``, a file holding a credential is one, marked ``quarantined``)."""
    state.sha256 = hashlib.sha256(data).hexdigest()
    state.blob = blob_id(data)
    try:
        state.memory = memory_from_bytes(data, state.path, max_bytes=max_bytes)
    except VaultMemError as exc:
        state.problem = after_name(str(exc), state.path)
    if policy is not None:
        reason = policy.quarantine_reason(state.path, data, state.memory)  # type: ignore[arg-type]
        if reason:
            state.problem, state.memory, state.quarantined = reason, None, True
    return state


