"""Vault settings from ``vault.toml``, with defaults for everything.

The file is read with :mod:`tomllib`; vault-mem never rewrites it (a person owns it, and it is
committed). Unknown sections and keys are ignored so that newer vaults open with older tools.

vault.toml arrives from peers too (it is committed and synced), so the settings that send data off
the machine or name a secret (:func:`outbound_settings`: the remote embedder, its URL and API-key
variable, the sync remote and schedule) are only *requested* there: :func:`settings_in_force`
decides, from what this machine's person approved (``vault-mem trust``,
:mod:`vault_mem.store.trust`), which of them take effect (DESIGN §7).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from vault_mem.errors import ConfigError, NotAVaultError

#: the package version (pyproject.toml says the same); vault_mem.__version__ is this
VERSION = "0.1.0"
CONFIG_FILE = "vault.toml"
STATE_DIR = ".vault-mem"

#: Code points that macOS's HFS+ leaves out of a file name when it compares two (git's list,
#: ``is_hfs_dotgit``): ``.vault\u200c-mem`` is ``.vault-mem`` there.
_HFS_IGNORED = dict.fromkeys([0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F),
                              *range(0x206A, 0x2070), 0xFEFF])


def disk_name(name: str) -> str:
    """The form of the path component ``name`` that a case-insensitive file system (macOS,
    Windows) compares: case folded, HFS+'s ignored code points and NTFS's trailing dots and
    spaces dropped. Two names with the same form are one file there."""
    return name.translate(_HFS_IGNORED).rstrip(". ").casefold()


def is_state_dir_name(name: str) -> bool:
    """Whether the path component ``name`` is, on some file system, the state folder
    (:data:`STATE_DIR`): the one comparison every check of that name makes (a peer's
    ``.VAULT-MEM/index.db`` would replace the index on macOS or Windows). Windows' 8.3 short
    name of the folder (``VAULT-~1``) counts too."""
    folded = disk_name(name)
    if folded == STATE_DIR:
        return True
    short = STATE_DIR.lstrip(".").replace(".", "")[:6].casefold()
    return folded.startswith(short + "~") and folded[len(short) + 1:].isdigit()

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


#: ``[embedder] prefix``: who adds a model's task prefix ("query: ", "passage: " ...). auto:
#: vault-mem, from the model name; server: the server, told each text's kind in an
#: ``input_type`` field; none: nobody (see vault_mem/embed/http.py)
PREFIX_MODES = ("auto", "server", "none")


@dataclass(frozen=True)
class EmbedderConfig:
    """Which embedder the sidecar uses (``local``, ``ollama``, ``openai`` or ``none``)."""

    provider: str = "local"
    model: str = ""
    url: str = ""
    api_key_env: str = ""
    dimensions: int = 0
    timeout_s: float = 30.0
    #: who adds the model's task prefix: auto (vault-mem), server, none (see embed/http.py)
    prefix: str = "auto"


@dataclass(frozen=True)
class Config:
    """Everything ``vault.toml`` can set. Build with :func:`parse_config`."""

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
    #: the daemon's quiet period before a hand edit is indexed (a git operation's burst waits
    #: at least 150 ms: vault_mem.daemon.process.BULK_DEBOUNCE_S)
    debounce_ms: int = 20
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


def parse_config(raw: bytes | None, path: Path | str = CONFIG_FILE) -> Config:
    """The settings ``vault.toml``'s bytes ``raw`` ask for (None: no file, the defaults), before
    :func:`settings_in_force` and ``$VAULT_MEM_EMBEDDER`` (:func:`with_environment`). The
    caller reads the file (never through a link: :func:`vault_mem.store.files.read_own`)."""
    try:
        data = tomllib.loads(raw.decode("utf-8")) if raw is not None else {}
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
            prefix=_get(emb, "prefix", str, "auto"),
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
    if cfg.embedder.prefix not in PREFIX_MODES:
        raise ConfigError(
            f"vault.toml: [embedder] prefix {cfg.embedder.prefix!r} is unknown; use auto (vault-mem adds the "
            "model's task prefix), server (the server does, told each text's kind) or none"
        )
    if cfg.embedder.provider not in PROVIDERS:
        raise ConfigError(
            f"vault.toml: [embedder] provider {cfg.embedder.provider!r} is unknown; use {_PROVIDER_LIST}"
        )
    return cfg


def with_environment(cfg: Config) -> Config:
    """``cfg`` with ``$VAULT_MEM_EMBEDDER`` (the person's own override) applied."""
    env_provider = os.environ.get("VAULT_MEM_EMBEDDER")
    if env_provider:
        if env_provider not in PROVIDERS:
            raise ConfigError(f"VAULT_MEM_EMBEDDER={env_provider!r}: use {_PROVIDER_LIST}")
        cfg = _replace_embedder(cfg, provider=env_provider)
    return cfg


def _replace_embedder(cfg: Config, **changes) -> Config:
    from dataclasses import replace

    return replace(cfg, embedder=replace(cfg.embedder, **changes))


# -- the settings a peer's vault.toml may only request (DESIGN §7) --------------------------
#: providers that send memory texts to a server
REMOTE_PROVIDERS = ("ollama", "openai")

#: the outbound settings of a vault nobody approved anything for: nothing leaves the machine
OFFLINE_SETTINGS: dict[str, object] = {
    "embedder.provider": "local", "embedder.url": "", "embedder.api_key_env": "",
    "sync.remote": "", "sync.interval_s": 0.0, "sync.after_write": False,
}


def outbound_settings(cfg: Config) -> dict[str, object]:
    """The settings of ``cfg`` that send data off the machine or name a secret, as
    ``{"section.key": value}`` (``embedder.model`` only for a remote provider: the local one
    ships one model)."""
    e = cfg.embedder
    out: dict[str, object] = {
        "embedder.provider": e.provider, "embedder.url": e.url, "embedder.api_key_env": e.api_key_env,
        "sync.remote": cfg.sync_remote, "sync.interval_s": float(cfg.sync_interval_s),
        "sync.after_write": cfg.sync_after_write,
    }
    if e.provider in REMOTE_PROVIDERS:
        out["embedder.model"] = e.model
    return out


def sends_nothing(settings: dict[str, object]) -> bool:
    """True when ``settings`` send nothing off the machine: a local (or no) embedder and no
    scheduled sync to a named remote. Such settings need no approval."""
    return (settings.get("embedder.provider") not in REMOTE_PROVIDERS and not settings.get("sync.remote")
            and not settings.get("sync.interval_s") and not settings.get("sync.after_write"))


def settings_in_force(requested: Config, approved: dict[str, object] | None
                      ) -> tuple[Config, dict[str, object]]:
    """The settings that take effect, and the requested outbound settings that do not (pending).

    vault.toml's outbound settings apply when they are exactly what this machine approved, or
    when they send nothing off the machine; otherwise the approved ones stay in force (none
    approved: :data:`OFFLINE_SETTINGS`) and the requested ones that differ are pending."""
    wanted = outbound_settings(requested)
    if wanted == approved or sends_nothing(wanted):
        return requested, {}
    keep = dict(approved) if approved is not None else dict(OFFLINE_SETTINGS)
    if not isinstance(keep.get("embedder.provider"), str) or keep["embedder.provider"] not in PROVIDERS:
        keep = dict(OFFLINE_SETTINGS)  # a damaged approval file fails safe
    pending = {k: v for k, v in wanted.items() if keep.get(k, OFFLINE_SETTINGS.get(k)) != v}

    def get(key: str, kind: type):  # a value of the wrong kind in the approval file: the default
        value = keep.get(key, OFFLINE_SETTINGS.get(key))
        if kind is float:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            return float(value) if ok else 0.0  # type: ignore[arg-type]
        return value if isinstance(value, kind) else kind()

    from dataclasses import replace

    provider = get("embedder.provider", str)
    cfg = replace(
        requested,
        embedder=replace(requested.embedder, provider=provider, url=get("embedder.url", str),
                         api_key_env=get("embedder.api_key_env", str),
                         model=get("embedder.model", str) if provider in REMOTE_PROVIDERS
                         else ("" if requested.embedder.provider in REMOTE_PROVIDERS
                               else requested.embedder.model)),
        sync_remote=get("sync.remote", str),
        sync_interval_s=get("sync.interval_s", float),
        sync_after_write=get("sync.after_write", bool),
    )
    return cfg, pending


def describe_settings(settings: dict[str, object]) -> str:
    """``[embedder] url = '...', api_key_env = 'X'; [sync] remote = 'y'`` for a message."""
    parts: dict[str, list[str]] = {}
    for key, value in settings.items():
        section, name = key.split(".", 1)
        parts.setdefault(section, []).append(f"{name} = {value!r}")
    return "; ".join(f"[{section}] {', '.join(items)}" for section, items in parts.items())


def find_vault_root(start: Path | None = None) -> Path:
    """``start`` or its nearest parent holding a vault.toml (as git finds .git)."""
    here = Path(start or Path.cwd()).expanduser().resolve()
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_FILE).is_file():
            return candidate
    raise NotAVaultError(
        f"{here} is not a vault, nor inside one (no {CONFIG_FILE} here or above); "
        f"create one with `vault-mem init {here}` or pass --vault PATH"
    )


def resolve_vault_root(explicit: str | Path | None = None, *, start: Path | None = None) -> Path:
    """The vault a command means: ``explicit`` (--vault or a PATH argument), else
    $VAULT_MEM_VAULT, else where ``start`` (default: the working directory) is; in each case
    that folder or the nearest parent holding a vault.toml. ``~`` is expanded."""
    chosen = explicit or os.environ.get("VAULT_MEM_VAULT")
    return find_vault_root(Path(chosen) if chosen else start)
