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
from dataclasses import dataclass
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import VaultMemError
from vault_mem.index.folderscan import path_sig, stat_sig
from vault_mem.model import lazy_patterns as lazy_patterns_mod
from vault_mem.model import policy as policy_mod
from vault_mem.model import secret_checks as secret_checks_mod
from vault_mem.model import secret_codes as secret_codes_mod
from vault_mem.model import secret_commands as secret_commands_mod
from vault_mem.model import secret_disguises as secret_disguises_mod
from vault_mem.model import secret_fields as secret_fields_mod
from vault_mem.model import secret_judge as secret_judge_mod
from vault_mem.model import secret_keys as secret_keys_mod
from vault_mem.model import secret_labels as secret_labels_mod
from vault_mem.model import secret_names as secret_names_mod
from vault_mem.model import secret_near as secret_near_mod
from vault_mem.model import secret_pairs as secret_pairs_mod
from vault_mem.model import secret_phrases as secret_phrases_mod
from vault_mem.model import secret_public as secret_public_mod
from vault_mem.model import secret_places as secret_places_mod
from vault_mem.model import secret_rules as secret_rules_mod
from vault_mem.model import secret_text as secret_text_mod
from vault_mem.model import secret_tokens as secret_tokens_mod
from vault_mem.model import secret_urls as secret_urls_mod
from vault_mem.model import secret_values as secret_values_mod
from vault_mem.model import secret_words as secret_words_mod
from vault_mem.model import secrets as secrets_mod
from vault_mem.model import seed_words as seed_words_mod
from vault_mem.model import seed_words_other as seed_words_other_mod
from vault_mem.model.memory import memory_from_bytes
from vault_mem.model.names import shown
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


#: the modules whose code decides what the secret gate refuses (tests check none is missing)
GATE_MODULES = (policy_mod, secrets_mod,
                secret_checks_mod,
                secret_codes_mod,
                secret_commands_mod,
                secret_disguises_mod,
                secret_fields_mod,
                secret_judge_mod,
                secret_keys_mod,
                secret_labels_mod,
                secret_names_mod,
                secret_near_mod,
                secret_pairs_mod,
                secret_phrases_mod,
                secret_public_mod,
                secret_places_mod,
                secret_rules_mod,
                secret_text_mod,
                secret_tokens_mod,
                secret_urls_mod,
                secret_values_mod,
                secret_words_mod,
                seed_words_mod, seed_words_other_mod, lazy_patterns_mod)


def gate_fingerprint() -> str:
    """A digest of the secret rules this process runs (the code of GATE_MODULES): a sidecar
    that recorded another one re-checks every file, so a rule added since quarantines a file
    indexed before it."""
    h = hashlib.sha256()
    for mod in GATE_MODULES:
        try:
            h.update(Path(mod.__file__ or "").read_bytes())
        except OSError:
            h.update(mod.__name__.encode())
    return h.hexdigest()[:16]


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
        state.problem = _strip_path(str(exc), rel)
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
        state.problem = _strip_path(str(exc), state.path)
    if policy is not None:
        reason = policy.quarantine_reason(state.path, data, state.memory)  # type: ignore[arg-type]
        if reason:
            state.problem, state.memory, state.quarantined = reason, None, True
    return state


def _strip_path(message: str, rel: str) -> str:
    for name in (shown(rel), rel):  # messages name a path escaped (model/names.shown)
        if message.startswith(name + ": "):
            return message[len(name) + 2:]
    return message
