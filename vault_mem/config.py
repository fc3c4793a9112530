"""Vault settings from ``vault.toml``, with defaults for everything.

The file is read with :mod:`tomllib`; vault-mem never rewrites it (a person owns it, and it is
committed). Unknown sections and keys are ignored so that newer vaults open with older tools.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from vault_mem.errors import ConfigError

#: the package version (pyproject.toml says the same); vault_mem.__version__ is this
VERSION = "0.1.0"
CONFIG_FILE = "vault.toml"
STATE_DIR = ".vault-mem"

#: type -> folder, in INDEX.md section order (notes are searchable but not listed).
#: embedder providers (vault.toml [embedder] provider, VAULT_MEM_EMBEDDER); vault_mem.embed.local builds them
PROVIDERS = ("local", "multilingual", "ollama", "openai", "none")
_PROVIDER_LIST = ", ".join(PROVIDERS[:-1]) + " or " + PROVIDERS[-1]
TYPE_FOLDERS: dict[str, str] = {
    "preference": "preferences",
    "fact": "facts",
    "decision": "decisions",
    "procedure": "procedures",
    "note": "notes",
}
FOLDER_TYPES: dict[str, str] = {folder: t for t, folder in TYPE_FOLDERS.items()}

DEFAULT_STALE_AFTER_DAYS: dict[str, int] = {
    "preference": 365,
    "fact": 180,
    "decision": 365,
    "procedure": 180,
    "note": 365,
}


@dataclass(frozen=True)
class EmbedderConfig:
    """Which embedder the sidecar uses (``local``, ``ollama``, ``openai`` or ``none``)."""

    provider: str = "local"
    model: str = ""
    url: str = ""
    api_key_env: str = ""
    dimensions: int = 0
    timeout_s: float = 30.0


@dataclass(frozen=True)
class Config:
    """Everything ``vault.toml`` can set. Build with :func:`load_config`."""

    agent_name: str = "vault-mem agent"
    agent_email: str = "agent@vault-mem.local"
    index_budget_tokens: int = 2000
    max_body_bytes: int = 64 * 1024
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    recall_k: int = 5
    #: ``[recall] min_similarity``: the relevance floor's cosine bar, overriding the calibration
    recall_min_similarity: float | None = None
    stale_after_days: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_STALE_AFTER_DAYS))
    # Daemon: commit external edits after a quiet period. "auto" = on in a standalone vault,
    # off in a vault inside a larger repository.
    commit_external_edits: str = "auto"
    quiet_seconds: float = 30.0
    debounce_ms: int = 150
    sync_remote: str = ""
    sync_interval_s: float = 0.0
    sync_after_write: bool = False

    @property
    def max_file_bytes(self) -> int:
        """Largest memory file accepted: the body limit plus room for frontmatter."""
        return self.max_body_bytes + 16 * 1024


def _get(table: dict, key: str, kind: type | tuple[type, ...], default):
    value = table.get(key, default)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
        raise ConfigError(
            f"vault.toml: '{key}' must be {getattr(kind, '__name__', kind)}, got {value!r}; "
            "fix or remove the line (defaults apply when it is absent)"
        )
    return value


def _min_similarity(recall: dict) -> float | None:
    value = recall.get("min_similarity")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1.0 <= value <= 1.0:
        raise ConfigError(
            f"vault.toml: [recall] min_similarity must be a cosine between -1 and 1, got {value!r}; "
            "fix or remove the line (the floor is then calibrated for the vault)"
        )
    return float(value)


def load_config(root: Path) -> Config:
    """Read ``root/vault.toml``; a missing file gives the defaults."""
    path = Path(root) / CONFIG_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file and retry") from exc
    agent = data.get("agent", {})
    index = data.get("index", {})
    limits = data.get("limits", {})
    emb = data.get("embedder", {})
    recall = data.get("recall", {})
    daemon = data.get("daemon", {})
    sync = data.get("sync", {})
    stale = dict(DEFAULT_STALE_AFTER_DAYS)
    for t, days in data.get("stale_after_days", {}).items():
        if t in stale and isinstance(days, int) and not isinstance(days, bool):
            stale[t] = days
    commit_ext = daemon.get("commit_external_edits", "auto")
    if isinstance(commit_ext, bool):
        commit_ext = "on" if commit_ext else "off"
    if commit_ext not in ("auto", "on", "off"):
        raise ConfigError("vault.toml: [daemon] commit_external_edits must be auto, true or false")
    cfg = Config(
        agent_name=_get(agent, "name", str, Config.agent_name),
        agent_email=_get(agent, "email", str, Config.agent_email),
        index_budget_tokens=_get(index, "budget_tokens", int, Config.index_budget_tokens),
        max_body_bytes=_get(limits, "max_body_bytes", int, Config.max_body_bytes),
        embedder=EmbedderConfig(
            provider=_get(emb, "provider", str, "local"),
            model=_get(emb, "model", str, ""),
            url=_get(emb, "url", str, ""),
            api_key_env=_get(emb, "api_key_env", str, ""),
            dimensions=_get(emb, "dimensions", int, 0),
            timeout_s=float(_get(emb, "timeout_s", (int, float), 30.0)),
        ),
        recall_k=_get(recall, "k", int, Config.recall_k),
        recall_min_similarity=_min_similarity(recall),
        stale_after_days=stale,
        commit_external_edits=commit_ext,
        quiet_seconds=float(_get(daemon, "quiet_seconds", (int, float), Config.quiet_seconds)),
        debounce_ms=_get(daemon, "debounce_ms", int, Config.debounce_ms),
        sync_remote=_get(sync, "remote", str, ""),
        sync_interval_s=float(_get(sync, "interval_s", (int, float), 0.0)),
        sync_after_write=_get(sync, "after_write", bool, False),
    )
    if cfg.embedder.provider not in PROVIDERS:
        raise ConfigError(
            f"vault.toml: [embedder] provider {cfg.embedder.provider!r} is unknown; use {_PROVIDER_LIST}"
        )
    env_provider = os.environ.get("VAULT_MEM_EMBEDDER")
    if env_provider:
        if env_provider not in PROVIDERS:
            raise ConfigError(f"VAULT_MEM_EMBEDDER={env_provider!r}: use {_PROVIDER_LIST}")
        cfg = _replace_embedder(cfg, provider=env_provider)
    return cfg


def _replace_embedder(cfg: Config, **changes) -> Config:
    from dataclasses import replace

    return replace(cfg, embedder=replace(cfg.embedder, **changes))
