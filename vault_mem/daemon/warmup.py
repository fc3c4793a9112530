"""A long-lived reader's start-up: the embedder's model, then the in-memory vectors, loaded on a
thread of their own while the process already answers (:class:`Warmup`; the MCP server's, beside
its :class:`~vault_mem.daemon.keeper.Keeper`)."""

from __future__ import annotations

import logging
import threading
import time

from vault_mem.index.vectors import VectorStore
from vault_mem.platform.heap import trim_heap
from vault_mem.vault.core import Vault

log = logging.getLogger("vault_mem.daemon.warmup")


#: What a recall says while the model and vectors are still loading (it is keyword-only then).
WARMING = ("the model and the vectors are still loading (the server just started): these are keyword "
           "results only; ask again in a moment for full recall")
#: How long after start-up a recall waits for the model rather than answer keyword-only
#: (:attr:`Warmup.ready_by`): a keyword-only answer can miss a paraphrase of what is stored, so
#: the first recall of a process waits for it, up to this. The local model is in within ~1 s on
#: 2 busy cores (docs/benchmarks.md, "Recall, hooks and the MCP server"); the vectors need not be (see :class:`Warmup`).
MODEL_WAIT_S = 10.0


class Warmup:
    """A long-lived reader's start-up: the embedder's model, then the in-memory vectors, load
    on a thread of their own while the process already answers (keyword-only, saying so, until
    the model is in: ``VectorStore.warming``). Once the model is in, recall is full (:attr:`full`):
    while the vectors still load (1-4 s at 100k memories) it searches them in the vector table,
    as a one-shot command does (``VectorStore.vectors_loading``); the first full answer then waited
    for the model and the vectors. :meth:`wait_ready` lets a recall wait a little for the
    model; :attr:`ready` is set once both are in."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        #: the model is in (or failed to load): a recall is full, not keyword-only
        self.full = threading.Event()
        #: the model and the vectors are in (or failed to load)
        self.ready = threading.Event()
        #: a recall that comes before the model is in waits until then (``time.monotonic()``), see :meth:`wait_ready`
        self.ready_by: float | None = None
        self.model_s: float | None = None
        self.vectors_s: float | None = None
        self._threads: list[threading.Thread] = []
        self._started = False
        #: the vectors may begin loading once the model is in (see :meth:`start`)
        self._vectors_go = threading.Event()

    def start(self, *, hold_vectors: bool = False) -> None:
        """Begin loading (once; a second call does nothing but :meth:`release_vectors` unless
        ``hold_vectors``). With ``hold_vectors`` the model loads now and the vectors only after
        :meth:`release_vectors`: the MCP server loads the model while it imports the MCP SDK
        and answers ``initialize``, but not the vectors, which the first recall does not need
        (it searches the vector table) and which, loaded then, took the interpreter's lock and
        a core from that import (at 100k the SDK's import took ~1.9 s instead of ~1.0 s)."""
        if not hold_vectors:
            self.release_vectors()
        if self._started:
            return
        self._started = True
        vectors = self.vault.sidecar.vectors
        vectors.keep_vectors_in_memory = True
        if vectors.vectors_reason() is not None:  # keyword-only here: nothing to load
            self.full.set()
            self.ready.set()
            return
        embedder = vectors.get_embedder()
        vectors.warming = WARMING
        self._t0 = time.perf_counter()
        # one after the other, on one thread: run together on 2 cores, each took as long as both
        # (vectors 2.8 s instead of ~1 s at 100k), and the model's load-time garbage (~80 MB,
        # handed back by trim_heap) and the vectors stacked up in the peak
        t = threading.Thread(target=self._run, args=(embedder, vectors), name="vault-mem-warm", daemon=True)
        self._threads.append(t)
        t.start()

    def _run(self, embedder, vectors: VectorStore) -> None:
        self._attempt("the model", self._load_model, embedder)
        # the vectors are searched in their table until the copy is in (set before warming ends:
        # a recall never loads the copy itself on its own thread meanwhile)
        vectors.vectors_loading = True
        vectors.warming = None
        self.full.set()
        log.info("vault-mem: ready for full recall %.0f ms after start-up (model %s ms); the vectors load meanwhile",
                 (time.perf_counter() - self._t0) * 1000, _ms(self.model_s))
        self._vectors_go.wait()
        try:
            self._attempt("the vectors", self._load_vectors, vectors)
        finally:
            vectors.vectors_loading = False
        self.ready.set()
        log.info("vault-mem: vectors in memory %.0f ms after start-up (%s ms)",
                 (time.perf_counter() - self._t0) * 1000, _ms(self.vectors_s))

    @staticmethod
    def _attempt(what: str, fn, arg) -> None:
        try:
            fn(arg)
        except Exception as exc:  # noqa: BLE001 - the reads load what they need themselves
            log.warning("vault-mem: loading %s in the background failed (%s); the first recall loads it",
                        what, exc)
        trim_heap()

    def release_vectors(self) -> None:
        """Let the vectors load once the model is in (see :meth:`start`)."""
        self._vectors_go.set()

    def _load_model(self, embedder) -> None:
        t0 = time.perf_counter()
        load = getattr(embedder, "load", None)
        if callable(load):
            load()
        self.model_s = time.perf_counter() - t0

    def _load_vectors(self, vectors: VectorStore) -> None:
        self.vectors_s = vectors.preload_vectors()

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the model and vectors; True when they are in."""
        return self.ready.wait(timeout)

    def wait_ready(self) -> bool:
        """Wait for the model (a full recall) until :attr:`ready_by` (not at all when unset);
        True when it is in."""
        if self.full.is_set() or self.ready_by is None:
            return self.full.is_set()
        return self.full.wait(max(0.0, self.ready_by - time.monotonic()))


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f}"
