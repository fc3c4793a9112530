"""What this machine's person approved, and this machine's own secret: kept outside every vault.

Both live in ``$XDG_CONFIG_HOME/vault-mem/`` (default ``~/.config/vault-mem/``, folder 0700), where
no commit, clone or peer can write (DESIGN §7):

- ``trusted.json`` (0600): per vault, keyed by the vault's resolved path, the outbound settings
  (:func:`vault_mem.config.outbound_settings`) the person approved with ``vault-mem trust``, as
  values, not as a yes/no. A vault moved or copied elsewhere has no approval at its new path and
  falls back to the offline defaults with a pending notice; a different vault cloned later to the
  same path gets only the exact values approved there, never whatever its vault.toml says. Beside
  them, ``authors``: the commit author emails approved with ``vault-mem trust --author``.
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
import secrets
import threading
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.files import atomic_write, open_nofollow, read_own, refuse_link
from vault_mem.store.locks import FileLock

TRUST_FILE = "trusted.json"
KEY_FILE = "machine.key"


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/vault-mem`` (default ``~/.config/vault-mem``), made 0700 if missing."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    folder = Path(base) / "vault-mem"
    refuse_link(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def trust_file() -> Path:
    """Where the approvals are kept (``trusted.json`` in :func:`config_dir`), made or not."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "vault-mem" / TRUST_FILE


def _vaults() -> dict:
    raw = read_own(config_dir() / TRUST_FILE)
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}  # a damaged file approves nothing: the offline defaults hold
    vaults = data.get("vaults") if isinstance(data, dict) else None
    return vaults if isinstance(vaults, dict) else {}


def approved_settings(root: Path) -> dict[str, object] | None:
    """The outbound settings approved for the vault at ``root`` on this machine, or None."""
    entry = _vaults().get(str(Path(root).resolve()))
    settings = entry.get("settings") if isinstance(entry, dict) else None
    return settings if isinstance(settings, dict) else None


def approve_settings(root: Path, settings: dict[str, object]) -> Path:
    """Record ``settings`` as approved for the vault at ``root``; returns the file written."""
    folder = config_dir()
    path = folder / TRUST_FILE
    with FileLock(folder / "trusted.lock", what="the approvals file's lock"):
        vaults = _vaults()
        entry = vaults.get(str(Path(root).resolve()))
        vaults[str(Path(root).resolve())] = {
            **(entry if isinstance(entry, dict) else {}),  # the approved authors stay
            "settings": settings, "approved_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        atomic_write(path, json.dumps({"version": 1, "vaults": vaults}, indent=1, sort_keys=True).encode(),
                     mode=0o600)
    return path


def approved_authors(root: Path) -> set[str]:
    """The commit author emails the person approved for the vault at ``root`` on this machine
    (``vault-mem trust --author``), lowercased: their memories may be put in front of an agent
    unasked (DESIGN §7)."""
    entry = _vaults().get(str(Path(root).resolve()))
    authors = entry.get("authors") if isinstance(entry, dict) else None
    return {a.lower() for a in authors if isinstance(a, str)} if isinstance(authors, list) else set()


def approve_authors(root: Path, emails: list[str]) -> Path:
    """Add ``emails`` to the approved authors of the vault at ``root``; returns the file written.
    The settings approved for it stay as they are."""
    folder = config_dir()
    path = folder / TRUST_FILE
    with FileLock(folder / "trusted.lock", what="the approvals file's lock"):
        vaults = _vaults()
        key = str(Path(root).resolve())
        entry = vaults.get(key)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry["authors"] = sorted(approved_authors(root) | {e.strip().lower() for e in emails if e.strip()})
        vaults[key] = entry
        atomic_write(path, json.dumps({"version": 1, "vaults": vaults}, indent=1, sort_keys=True).encode(),
                     mode=0o600)
    return path


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
        os.write(fd, secrets.token_bytes(32))
        os.fsync(fd)
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
