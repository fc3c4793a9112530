"""An HTTP embedder that refuses some texts (a server with a token limit: code or CJK text passes
512 tokens well within the 2,000 characters a memory's embedded text keeps) must hold up no
other memory. Before: the batch holding the refused text failed as a whole, was retried every
60 s and failed again, so that memory and every longer one never got a vector, and every
no-hit recall said "incomplete" (ask again in a moment) forever.

Now the refused texts are found by halving the batch, recorded per model in the embedding cache
and not sent again; they are found by keywords only, are not counted as owed a vector, and
`vault-mem doctor` names them. A server that refuses even the shortest text, or answers 5xx, is
down: nothing is recorded and the whole is retried later, as before.

The server is real HTTP on loopback (the stand-in for a remote OpenAI-compatible service),
serving the bundled model's vectors and answering 400 to any input over ``limit`` characters.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import cli, new_vault, real_embedder
from fakes import write_memory

from vault_mem import Vault
from vault_mem.embed.http import OpenAIEmbedder
from vault_mem.model import verdict
from vault_mem.ops.doctor import diagnose

MODEL = "all-MiniLM-L6-v2"  # the bundled model's name: the floor's prior for it holds
LIMIT = 400  # characters the server takes in one input
SHORT = 6
LONG_BODY = "def step(x):\n    return x * 2  # doubles the input of the build step\n" * 20  # ~1,400 characters


class Server:
    """An OpenAI-compatible ``POST /v1/embeddings`` on 127.0.0.1: the local model's vectors, HTTP
    400 for an input longer than ``limit`` characters (as llama.cpp's server and TEI refuse one
    over the model's context), or ``status`` for every request (a server that is down)."""

    def __init__(self, model, *, limit: int = LIMIT, status: int = 200) -> None:
        self.model, self.limit, self.status = model, limit, status
        self.inputs: list[list[str]] = []  # each request's texts
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.inputs.append(list(body["input"]))
                code, reply = server.answer(body)
                payload = json.dumps(reply).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        texts = body["input"]
        if self.status != 200:
            return self.status, {"error": {"message": "the model is loading", "type": "server_error"}}
        too_long = [len(t) for t in texts if len(t) > self.limit]
        if too_long:
            return 400, {"error": {"message": f"input is too long ({max(too_long)} characters, at most "
                                              f"{self.limit})", "type": "invalid_request_error"}}
        kind = "query" if body.get("input_type") == "query" else "document"
        vecs = self.model.embed_batch(texts, kind=kind)
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]
        return 200, {"object": "list", "data": data, "model": MODEL}

    def sent(self, needle: str) -> int:
        """How many requests held a text containing ``needle``."""
        return sum(any(needle in t for t in texts) for texts in self.inputs)

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture(scope="module")
def model():
    return real_embedder()


@pytest.fixture
def make_server(model):
    made: list[Server] = []

    def make(**kwargs) -> Server:
        made.append(Server(model, **kwargs))
        return made[-1]

    yield make
    for s in made:
        s.close()


def _vault_root(tmp_path):
    root = tmp_path / "vault"
    new_vault(root).close()
    for n in range(SHORT):
        write_memory(root, f"build-step-{n}", f"Build step {n} runs the linter on module {n} before the tests")
    write_memory(root, "doubling-step", "The doubling build step in code", LONG_BODY)
    return root


def _embedder(server: Server, **kwargs) -> OpenAIEmbedder:
    return OpenAIEmbedder(model=MODEL, url=server.url, batch_size=2, **kwargs)


def _refused_rows(vault) -> int:
    return vault.sidecar.db.execute("SELECT count(*) FROM embed_cache WHERE vector = x''").fetchone()[0]


def test_a_text_the_server_refuses_holds_up_no_other_and_is_not_sent_again(tmp_path, make_server):
    server = make_server()
    root = _vault_root(tmp_path)
    with Vault(root, embedder=_embedder(server)) as vault:
        store = vault.sidecar.vectors
        vault.reconcile()  # the memories written by hand are indexed (and their vectors made)
        store.embed_pending()
        with_vector = {r[0] for r in vault.sidecar.db.execute("SELECT key FROM files WHERE vec_model IS NOT NULL")}
        assert with_vector == {f"build-step-{n}" for n in range(SHORT)}  # the short ones, in the failed batch
        assert store.vectors_missing() == 0 and store.vectors_refused() == 1
        assert _refused_rows(vault) == 1
        assert store._embed_retry_at <= time.monotonic()  # not taken for a server that is down
        sent = server.sent("def step(x)")
        assert sent >= 2  # in the batch, then alone
        # not sent again: not by the next calls, nor by a recall, nor after the vector table is remade
        requests = len(server.inputs)
        assert store.embed_pending() == 0 and len(server.inputs) == requests
        result = vault.recall("what is my favourite pizza topping?")
        assert not result.hits, [h.key for h in result.hits]
        assert result.unembedded == 0 and result.verdict == verdict.NONE  # was "incomplete", forever
        store.reset_vectors()
        assert store.embed_pending() == SHORT  # from the cache, refusal and all
        assert store.vectors_missing() == 0 and server.sent("def step(x)") == sent
        # its words still find it
        assert "doubling-step" in [h.key for h in vault.recall("which step doubles the input?").hits]
        # doctor names it as a warning with what to do; the vault is otherwise healthy
        found = diagnose(vault)
        notes = [w for w in found.warnings if "refused" in w]
        assert len(notes) == 1 and "1 memory" in notes[0] and "shorter body" in notes[0], found.warnings
        assert not [d for d in found.differences if d.startswith("vectors:")], found.differences
        # and `vault-mem doctor` prints it, with this server in vault.toml
        toml = root / "vault.toml"
        assert 'provider = "local"' in toml.read_text()
        toml.write_text(toml.read_text().replace(
            'provider = "local"', f'provider = "openai"\nmodel = "{MODEL}"\nurl = "{server.url}"\nbatch_size = 2', 1))
        shown = cli("--vault", str(root), "doctor")
        assert f"warning: {notes[0]}" in shown.stdout, shown.stdout + shown.stderr
        assert server.sent("def step(x)") == sent  # that process did not send it either
        # an edited text is a new text: tried anew, and given its vector when the server takes it
        write_memory(root, "doubling-step", "The doubling build step in code", "def step(x): return x * 2\n")
        vault.reconcile()
        store.embed_pending()
        assert vault.sidecar.db.execute("SELECT vec_model FROM files WHERE key = 'doubling-step'").fetchone()[0]
        assert store.vectors_refused() == 0 and diagnose(vault).warnings == []


def test_another_model_is_asked_anew(tmp_path, make_server):
    server = make_server()
    root = _vault_root(tmp_path)
    with Vault(root, embedder=_embedder(server)) as vault:
        vault.reconcile()
        vault.sidecar.vectors.embed_pending()
        assert vault.sidecar.vectors.vectors_refused() == 1
    roomy = make_server(limit=10_000)
    with Vault(root, embedder=_embedder(roomy)) as vault:  # another URL: another model id
        vault.reconcile()
        vault.sidecar.vectors.embed_pending()
        assert roomy.sent("def step(x)") == 1
        assert vault.sidecar.vectors.vectors_missing() == 0 == vault.sidecar.vectors.vectors_refused()


def test_a_reindex_asks_again(tmp_path, make_server):
    """Under the same model id the server's limit may have been raised: `vault-mem reindex` (the
    fix doctor names) sends the refused text again; nothing else does."""
    server = make_server()
    root = _vault_root(tmp_path)
    with Vault(root, embedder=_embedder(server)) as vault:
        vault.reconcile()
        vault.sidecar.vectors.embed_pending()
        assert vault.sidecar.vectors.vectors_refused() == 1 and "reindex" in diagnose(vault).warnings[0]
        sent = server.sent("def step(x)")
        server.limit = 10_000
        vault.sidecar.vectors.embed_pending()
        assert server.sent("def step(x)") == sent
        vault.reindex()
        assert server.sent("def step(x)") == sent + 1
        assert vault.sidecar.vectors.vectors_missing() == 0 == vault.sidecar.vectors.vectors_refused()
        assert vault.sidecar.db.execute("SELECT count(*) FROM files WHERE vec_model IS NOT NULL").fetchone()[0] \
            == SHORT + 1


@pytest.mark.parametrize("kind", ["refuses every text", "answers 503"])
def test_a_server_that_takes_nothing_is_down_and_is_retried_later(tmp_path, make_server, kind):
    """Refusing even the shortest text (a wrong model name, a proxy's error page as 400) says
    nothing of the texts: nothing is recorded, every memory stays owed, the whole is retried
    after EMBED_RETRY_S, and a no-hit recall still says it could not search them all."""
    server = make_server(limit=0) if kind == "refuses every text" else make_server(status=503)
    root = _vault_root(tmp_path)
    # dimensions given: no probe request first, so the texts' own batch meets the refusal
    with Vault(root, embedder=_embedder(server, dimensions=384)) as vault:
        store = vault.sidecar.vectors
        vault.reconcile()
        assert store.embed_pending() == 0
        assert store._embed_retry_at > time.monotonic()
        assert store.vectors_missing() == SHORT + 1 and store.vectors_refused() == 0 and _refused_rows(vault) == 0
        # a 503 is not split; a refusal of everything costs one request per halving down to the shortest
        assert len(server.inputs) == (1 if kind == "answers 503" else 3), server.inputs
        requests = len(server.inputs)
        assert store.embed_pending() == 0 and len(server.inputs) == requests  # not before the retry time
        store._embed_retry_at = 0.0  # the retry time passed: tried again, as before
        store.embed_pending()
        assert len(server.inputs) > requests and _refused_rows(vault) == 0
        assert store.vectors_missing() == SHORT + 1
        assert not any("refused" in w for w in diagnose(vault).warnings)

