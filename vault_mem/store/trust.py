"""What this machine's person approved, and this machine's own secret: kept outside every vault.

Both live in ``$XDG_CONFIG_HOME/vault-mem/`` (default ``~/.config/vault-mem/``, folder 0700), where
no commit, clone or peer can write (DESIGN §7):

- ``trusted.json`` (0600): per vault, keyed by the vault's resolved path, what the person approved
  (``vault-mem trust``): the whole vault.toml last approved, as its bytes (with the blob ids of a
  few versions approved before), the blob ids of files git interprets (``.gitattributes``,
  ``.gitignore`` ...) a sync may take, and the commit author emails whose memories may be put in
  front of an agent unasked (``vault-mem trust --author``), and whether the folder is a vault this
  machine made, used or approved (``vault``: which folder of a project is its vault is decided by
  these records, never by where a committed vault.toml stands: :mod:`vault_mem.store.finder`). Bytes, not a yes/no: a vault moved or
  copied elsewhere has no approval at its new path and falls back to the defaults with a pending
  notice; a different vault cloned later to the same path gets only the exact file approved there.
- ``machine.key`` (0600): 32 random bytes, the HMAC key that :func:`seal` signs this machine's
  journals and records with, so that a ``.vault-mem/pending.json`` planted through a commit is
  told apart from one this machine wrote (:func:`unseal`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import threading
from pathlib import Path

from vault_mem.config import APPROVED, RECORDED, user_config_dir
from vault_mem.errors import ConfigError, VaultMemError
from vault_mem.model.names import email_key
from vault_mem.store.files import atomic_write, open_nofollow, read_own, refuse_link
from vault_mem.store.locks import FileLock
from vault_mem.platform import durable
from vault_mem.platform import settle  # a trusted.json changed since is parsed again

TRUST_FILE = "trusted.json"
KEY_FILE = "machine.key"


def config_dir() -> Path:
    """:func:`~vault_mem.config.user_config_dir` (default ``~/.config/vault-mem``), made 0700 if
    missing; with no home, a :class:`~vault_mem.errors.ConfigError` saying what to set."""
    folder = user_config_dir()
    if folder is None:
        raise ConfigError("there is no home folder to keep this machine's approvals in (HOME is not set "
                          "and the user has no passwd entry): set HOME, or XDG_CONFIG_HOME to an absolute folder")
    refuse_link(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def trust_file() -> Path | None:
    """Where the approvals are kept (``trusted.json`` in :func:`config_dir`), made or not; None
    with no home (nothing approved)."""
    folder = user_config_dir()
    return folder / TRUST_FILE if folder is not None else None


def _load(raw: bytes | None) -> dict:
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}  # a damaged file approves nothing: the offline defaults hold
    vaults = data.get("vaults") if isinstance(data, dict) else None
    return vaults if isinstance(vaults, dict) else {}


#: the last parse of trusted.json in this process: (the file's stat before it was read, its vaults)
_parsed: tuple[tuple, dict] | None = None


def _vaults(*, fresh: bool = False) -> dict:
    """trusted.json's vaults, parsed once per version of the file in this process (a command
    asks for its vault's approvals several times, and the file holds every vault ever approved
    on the machine: 1,558 and 2.7 MB on the project's bench machine, ~10-15 ms of CPU per parse).
    The version is told by the file's stat taken before the read: vault-mem's writes replace the
    file (a new inode), an edit in place moves its ctime; a file changed less than
    :data:`~vault_mem.platform.settle.SETTLE_NS` before the read is not kept (the clock's tick may put a second change at
    the same ctime, as git's "racy" entries), so a parse is never kept past a change. Read only;
    ``fresh`` (a write about to change the file) parses it anew into a dict of its own."""
    global _parsed
    path = trust_file()
    if path is None:
        return {}  # no home: nothing approved here
    try:
        version = settle.settled_stamp(path, follow=False)
    except FileNotFoundError:
        version = None
    kept = _parsed
    if not fresh and version is not None and kept is not None and kept[0] == version:
        return kept[1]
    vaults = _load(read_own(path))
    if not fresh and version is not None:
        _parsed = (version, vaults)
    return vaults


#: past approved vault.toml versions remembered per vault (their blob ids): a file put back to
#: one of them (a revert, a peer's undo) is in force without asking again
APPROVED_HISTORY = 8


def _update_entry(root: Path, change) -> Path:
    """Apply ``change(entry)`` to the vault's entry of trusted.json under its lock (the other
    parts of the entry, approvals of other kinds, are kept); returns the file written."""
    folder = config_dir()
    path = folder / TRUST_FILE
    with FileLock(folder / "trusted.lock", what="the approvals file's lock"):
        vaults = _vaults(fresh=True)
        key = str(Path(root).resolve())
        entry = vaults.get(key)
        entry = dict(entry) if isinstance(entry, dict) else {}
        change(entry)
        vaults = {k: v for k, v in vaults.items() if k == key or not _only_defaults_of_a_gone_vault(k, v)}
        vaults[key] = entry
        atomic_write(path, json.dumps({"version": 1, "vaults": vaults}, indent=1, sort_keys=True).encode(),
                     mode=0o600)
    return path


def _only_defaults_of_a_gone_vault(key: str, entry: object) -> bool:
    """True for an entry that holds nothing but the approval of a vault.toml asking for the
    defaults alone, of a vault whose folder is gone: a temporary vault (``vault-mem eval``'s, a
    benchmark's) that would otherwise stay in the file every command parses (2,135 entries on
    the project's bench machine, 100 of them live). Dropping it loses nothing: the defaults need
    no approval, and a folder that comes back gets its file approved as before."""
    if not isinstance(entry, dict) or not entry or not set(entry) <= {"config", "vault"}:
        return False
    config = entry.get("config", {"defaults": True})  # only the record of its use: nothing approved
    return isinstance(config, dict) and config.get("defaults") is True and not os.path.isdir(key)


def _entry(root: Path) -> dict:
    entry = _vaults().get(str(Path(root).resolve()))
    return entry if isinstance(entry, dict) else {}


def approved_config(root: Path) -> tuple[bytes, list[str]] | None:
    """The vault.toml bytes last approved for the vault at ``root`` on this machine, and the
    blob ids of the versions approved before it (newest first); None when none was."""
    got = _entry(root).get("config")
    if not isinstance(got, dict) or not isinstance(got.get("text"), str):
        return None  # a damaged approval approves nothing: the defaults hold
    history = got.get("history")
    past = [h for h in history if isinstance(h, str)] if isinstance(history, list) else []
    return got["text"].encode("utf-8"), past


def approve_config(root: Path, raw: bytes, blob_id: str, *, how: str, defaults: bool = False) -> Path:
    """Record the vault.toml bytes ``raw`` (git blob id ``blob_id``) as the approved settings of
    the vault at ``root`` (``how``: who approved it: ``trust``, ``init``, ``own edit``;
    ``defaults``: the file asks for the defaults alone); the one approved before goes to the
    history. Returns the file written."""
    text = raw.decode("utf-8")  # only a file that parsed is approved, so it is UTF-8

    def change(entry: dict) -> None:
        old = entry.get("config") if isinstance(entry.get("config"), dict) else {}
        past = [h for h in [old.get("blob"), *(old.get("history") or [])] if isinstance(h, str) and h != blob_id]
        entry["config"] = {"blob": blob_id, "text": text, "history": past[:APPROVED_HISTORY], "how": how,
                           "approved_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        if defaults:
            entry["config"]["defaults"] = True

    return _update_entry(root, change)


def legacy_settings(root: Path) -> dict[str, object] | None:
    """The outbound settings (``"embedder.url"`` ...) an earlier vault-mem approved for the vault
    at ``root``, before whole files were approved; None when there are none."""
    got = _entry(root).get("settings")
    return dict(got) if isinstance(got, dict) else None  # a copy: the parse is kept (_vaults)


def approved_git_files(root: Path) -> set[str]:
    """The versions of files git interprets (.gitattributes, .gitignore ...) and of files
    vault-mem does not read that the person approved for the vault at ``root``: ``<blob
    id>:<path>``, ``delete:<path>`` for an approved deletion (see
    :attr:`vault_mem.store.gitfiles.IncomingGitFile.approval`)."""
    got = _entry(root).get("git_files")
    return {x for x in got if isinstance(x, str)} if isinstance(got, list) else set()


def approve_git_files(root: Path, ids: list[str]) -> Path:
    """Add ``ids`` (``<blob id>:<path>``, or ``delete:<path>``) to the approved files."""

    def change(entry: dict) -> None:
        have = entry.get("git_files") if isinstance(entry.get("git_files"), list) else []
        entry["git_files"] = sorted({*(x for x in have if isinstance(x, str)), *ids})

    return _update_entry(root, change)


def approved_authors(root: Path) -> set[str]:
    """The commit author emails the person approved for the vault at ``root`` on this machine
    (``vault-mem trust --author``), lowercased: their memories may be put in front of an agent
    unasked (DESIGN §7)."""
    got = _entry(root).get("authors")
    return {email_key(a) for a in got if isinstance(a, str)} if isinstance(got, list) else set()


def approve_authors(root: Path, emails: list[str]) -> Path:
    """Add ``emails`` to the approved authors of the vault at ``root``; returns the file written.
    The other approvals of the vault stay as they are."""

    def change(entry: dict) -> None:
        have = entry.get("authors") if isinstance(entry.get("authors"), list) else []
        entry["authors"] = sorted({*(email_key(a) for a in have if isinstance(a, str)),
                                   *(email_key(e.strip()) for e in emails if e.strip())})

    return _update_entry(root, change)


def vault_standing(root: Path) -> int:
    """How far the folder ``root`` is a vault of this machine (what decides which folder of a
    project is its vault, :mod:`vault_mem.store.finder`): :data:`~vault_mem.config.RECORDED` when it is
    recorded as one (made by ``init``, used first here, approved with ``vault-mem trust
    PATH/vault.toml``: :func:`record_vault`); :data:`~vault_mem.config.APPROVED` when only
    something of it was approved here (its settings: every vault before these records, and a
    folder once opened by ``--vault``); 0 otherwise."""
    entry = _vaults().get(str(Path(root).resolve()))
    if not isinstance(entry, dict) or not entry:
        return 0
    return RECORDED if isinstance(entry.get("vault"), dict) else APPROVED


def known_vault(root: Path) -> bool:
    """Whether the folder ``root`` is recorded as a vault of this machine (:func:`vault_standing`)."""
    return vault_standing(root) >= RECORDED


def record_vault(root: Path, how: str) -> Path:
    """Record the folder ``root`` as a vault of this machine (``how``: ``init``, ``first use``,
    ``trust``); returns the file written. The other approvals of the vault stay as they are."""

    def change(entry: dict) -> None:
        if not isinstance(entry.get("vault"), dict):
            entry["vault"] = {"how": how, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}

    return _update_entry(root, change)


def machine_key() -> bytes:
    """This machine's secret (made on first use; two processes making it at once agree)."""
    path = config_dir() / KEY_FILE
    key = read_own(path)
    if key is not None and len(key) >= 32:
        return key
    # per thread too: two threads of one process (a reader's start-up thread and its first
    # read) making the key at once must not share, and unlink, one temp file
    tmp = path.with_name(f".{KEY_FILE}.{os.getpid()}.{threading.get_ident()}")
    fd = open_nofollow(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, os.urandom(32))  # secrets.token_bytes' own source, without its imports
        durable.fsync(fd)
    finally:
        os.close(fd)
    try:
        if key is not None:  # a short (damaged) key: replace it
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # atomic, and fails when another process made one first
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    key = read_own(path)
    if key is None or len(key) < 32:
        raise VaultMemError(f"cannot make this machine's key {path}; check that folder's permissions")
    return key


def _mac(root: Path, kind: str, body: bytes) -> str:
    msg = b"\0".join([kind.encode(), str(Path(root).resolve()).encode(), body])
    return hmac.new(machine_key(), msg, hashlib.sha256).hexdigest()


def seal(root: Path, kind: str, payload: dict) -> bytes:
    """``payload`` as JSON signed with this machine's key for the vault at ``root`` (``kind``
    names what it is, so one record cannot pass for another)."""
    body = json.dumps(payload, sort_keys=True, ensure_ascii=True)
    return json.dumps({"payload": body, "mac": _mac(root, kind, body.encode())}).encode()


def unseal(root: Path, kind: str, raw: bytes) -> dict | None:
    """The payload of what :func:`seal` wrote on this machine for this vault, or None for
    anything else (unsigned, signed elsewhere, damaged)."""
    try:
        outer = json.loads(raw)
        body, mac = outer["payload"], outer["mac"]
        if not isinstance(body, str) or not isinstance(mac, str):
            return None
        if not hmac.compare_digest(mac, _mac(root, kind, body.encode())):
            return None
        payload = json.loads(body)
    except (ValueError, KeyError, TypeError):
        return None
    return payload if isinstance(payload, dict) else None
