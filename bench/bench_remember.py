"""How long one `remember` takes (new key, commit and INDEX.md included) next to
`git add <file> && git commit` on the same vault, at several vault sizes, in each embedder
configuration.

    python bench/bench_remember.py                                   # N = 1k, 10k, 50k; none and local
    python bench/bench_remember.py --sizes 10000 --writes 30 --embedder local
    python bench/bench_remember.py --sizes 50000 --embedder local --profile /tmp/prof   # pyinstrument
    python bench/bench_remember.py --sizes 10000,50000 --embedder none --parts   # + two parts alone

Per size, one vault is filled with one bulk-import commit (the code path `eval` uses). With
``local`` among the configurations the fill is then embedded with the real bundled model, so
the timed writes pay only for their own work, never for embedding the vault: the fill's
vectors go through the sidecar's own path (embedding cache -> vec0), and the real embeddings
are kept in ``--cache`` (by text hash) so that the next run does not embed 50k texts again
(~100 texts/s here). The same seeded vault then serves every configuration in turn.

Each configuration opens the vault in a fresh ``Vault`` (``VAULT_MEM_EMBEDDER`` chooses the
embedder), warms it like a long-running agent process (one recall, which loads the model, and
one untimed write), then times ``--writes`` calls of ``Vault.remember`` with new keys, then
``--writes`` rounds of ``git add <file> && git commit`` on the same vault. Prints the medians
(and, as "its commit", the median time of the write's own git commit step, GitRepo.commit_paths),
the ratio, and the load average (the figures are noisy on a shared machine); asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vault_mem import Memory, Vault
from vault_mem.embed.base import Embedder


class CachedEmbedder(Embedder):
    """The real embedder behind a file cache of its vectors (by sha256 of the text), for the fill.

    Only the fill uses it: the timed writes run on the vault's own configured embedder."""

    def __init__(self, inner, cache_dir: Path) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dimensions = inner.dimensions
        self.batch_size = 256
        self.min_duplicate_cosine = getattr(inner, "min_duplicate_cosine", 0.6)
        self.path = cache_dir / (hashlib.sha256(str(inner.model_id).encode()).hexdigest()[:16] + ".npz")
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))
        self.embedded = 0

    def embed_batch(self, texts, *, kind="document"):
        keys = [hashlib.sha256(f"{kind}\0{t}".encode()).hexdigest() for t in texts]
        todo = [(k, t) for k, t in dict(zip(keys, texts)).items() if k not in self.vectors]
        if todo:
            vecs = self.inner.embed_batch([t for _, t in todo], kind=kind)
            self.vectors.update(zip((k for k, _ in todo), vecs))
            self.embedded += len(todo)
        return np.stack([self.vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if not self.embedded:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vectors=np.stack([self.vectors[k] for k in keys]))
        os.replace(tmp, self.path)


def fill(vault: Vault, n: int) -> None:
    today = dt.date.today()
    batch = []
    for i in range(n):
        batch.append(Memory(key=f"bulk-{i:06d}", type="fact", meta={
            "description": f"Bulk memory number {i} about topic {i % 97}", "created": today,
            "updated": today, "source": "imported"}, body=f"Body text {i}.\n"))
    vault.import_memories(batch, message=f"import: {n} memories")


def seed_vectors(root: Path, cache_dir: Path) -> tuple[int, float]:
    """Embed every memory of the vault with the real local model (through the cache file);
    returns (texts the model embedded now, seconds)."""
    from vault_mem.embed.local import LocalEmbedder

    embedder = CachedEmbedder(LocalEmbedder(), cache_dir)
    t0 = time.perf_counter()
    with Vault(root, embedder=embedder) as vault:
        vault.sidecar.embed_pending()
    embedder.save()
    return embedder.embedded, time.perf_counter() - t0


WORDS = ("garden", "invoice", "kettle", "ladder", "meeting", "window", "bicycle", "printer", "recipe",
         "passport", "laptop", "violin", "harbor", "library", "tomato", "blanket", "compass", "dentist",
         "engine", "festival", "glacier", "hammer", "island", "jacket", "lantern", "marble", "notebook",
         "orchard", "pillow", "quartz", "rocket", "saddle", "teapot", "umbrella", "valley", "wallet",
         "yogurt", "zipper", "anchor", "basket", "candle", "donkey", "feather", "guitar", "helmet",
         "airport", "balcony", "cabinet", "desert", "elevator", "fountain", "garage", "highway", "igloo",
         "jungle", "kitchen", "lemon", "mirror", "napkin", "oven", "parrot", "river", "scarf", "tunnel",
         "vacuum", "walnut", "bakery", "camera", "diary", "envelope", "forest", "gravel", "honey",
         "iceberg", "journal", "kayak", "lobster", "mailbox", "nursery", "olive", "pencil", "radio")


def write_text(seed: str) -> tuple[str, str]:
    """(description, body) of one timed write: eight words of its own drawn by ``seed``, so no
    two writes (of any configuration) embed the same text (none comes from the embedding cache)
    and none is a near duplicate of another (which would add the duplicate check's work)."""
    h = hashlib.sha256(seed.encode()).digest()
    w = list(dict.fromkeys(WORDS[b % len(WORDS)] for b in h))[:8]
    return f"The {w[0]} by the {w[1]} needs a {w[2]}", f"Also the {w[3]}, {w[4]}, {w[5]}, {w[6]} and {w[7]}."


def git(root: Path, *args: str) -> None:
    # gc.auto=0: a commit on a freshly filled vault (50k loose objects) would start `git gc`
    # in the background, which then competes with the timings that follow
    subprocess.run(["git", "-c", "gc.auto=0", *args], cwd=root, check=True, capture_output=True)


def time_config(root: Path, embedder: str, writes: int, tag: str,
                profile: Path | None) -> tuple[float, float, float]:
    """(median ms of remember, of its commit step, of git add + commit) for one configuration."""
    os.environ["VAULT_MEM_EMBEDDER"] = embedder
    with Vault(root) as vault:
        vault.recall("what does the benchmark write about")  # a warm process: model loaded
        vault.remember(f"warm-{tag}", "A warm-up memory, not timed", "warm up")
        # how much of each write is the git layer's commit (GitRepo.commit_paths): timed by a
        # wrapper around the real method, so the rest of the write is the index, files, model
        commit_ms: list[float] = []
        real_commit = vault.repo.commit_paths

        def timed_commit(*a, **kw):
            t = time.perf_counter()
            try:
                return real_commit(*a, **kw)
            finally:
                commit_ms.append((time.perf_counter() - t) * 1000)

        vault.repo.commit_paths = timed_commit  # type: ignore[method-assign]
        times = []
        profiler = None
        if profile is not None:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0005)
        for i in range(writes):
            description, body = write_text(f"{tag}-{i}")
            if profiler is not None:
                profiler.start()
            t = time.perf_counter()
            vault.remember(f"new-{tag}-{i}", description, body)
            times.append((time.perf_counter() - t) * 1000)
            if profiler is not None:
                profiler.stop()
        if profiler is not None and profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
            out = profile / f"remember-{tag}.txt"
            out.write_text(profiler.output_text(unicode=False, color=False, show_all=False))
            print(f"  profile: {out}", flush=True)
    git_times = []
    for i in range(writes):
        p = root / "facts" / f"plain-{tag}-{i}.md"
        p.write_text(f"---\ndescription: plain {i}\n---\nbody\n")
        t = time.perf_counter()
        git(root, "add", str(p.relative_to(root)))
        # --no-verify: the vault's own pre-commit hook is not part of git's cost
        git(root, "commit", "-q", "--no-verify", "-m", f"plain {i}")
        git_times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), statistics.median(commit_ms), statistics.median(git_times)


def time_parts(root: Path, writes: int, tag: str) -> tuple[float, float]:
    """(median ms of rendering INDEX.md, median ms of a warm process's vector refresh after one
    write): two parts of a write's cost that grew with the vault, timed on their own so that
    the write's noisier total does not hide them."""
    os.environ["VAULT_MEM_EMBEDDER"] = "local"
    with Vault(root) as vault:
        vault.sidecar.keep_vectors_in_memory = True  # as the MCP server does
        vault.recall("what does the benchmark write about")  # loads the model and the vectors
        render, refresh = [], []
        for i in range(writes):
            t = time.perf_counter()
            vault.render_index()
            render.append((time.perf_counter() - t) * 1000)
            vault.remember(f"part-{tag}-{i}", *write_text(f"part-{tag}-{i}"))
            t = time.perf_counter()
            vault.sidecar.vector_index()  # what the next recall does first
            refresh.append((time.perf_counter() - t) * 1000)
    return statistics.median(render), statistics.median(refresh)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--writes", type=int, default=15)
    ap.add_argument("--embedder", default="none,local", help="comma-separated: none, local")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "vault-mem-bench-embeddings",
                    help="where the fill's real embeddings are kept between runs")
    ap.add_argument("--profile", type=Path, default=None, help="write a pyinstrument profile per size here")
    ap.add_argument("--parts", action="store_true",
                    help="also time INDEX.md rendering and a warm process's vector refresh after a write")
    args = ap.parse_args()
    configs = [c.strip() for c in args.embedder.split(",") if c.strip()]
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "b@example.com"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "b@example.com")):
        os.environ.setdefault(env, val)
    print(f"writes={args.writes} (median ms); fill embedded with the real model when 'local' is run")
    print(f"{'N':>7} {'embedder':>8} {'remember':>10} {'its commit':>11} {'git add+commit':>15} {'ratio':>6}"
          "   load average")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            os.environ["VAULT_MEM_EMBEDDER"] = "none"
            root = Path(tmp) / "v"
            t0 = time.perf_counter()
            Vault.init(root).close()
            with Vault(root) as vault:
                fill(vault, n)
            note = f"fill {time.perf_counter() - t0:.1f} s"
            if "local" in configs or args.parts:
                embedded, secs = seed_vectors(root, args.cache)
                note += f", vectors {secs:.1f} s ({embedded} embedded now, the rest from {args.cache})"
            print(f"{n:>7} {note}", flush=True)
            for cfg in configs:
                r, c, g = time_config(root, cfg, args.writes, f"{cfg}-{n}",
                                      args.profile / f"{n}" if args.profile else None)
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                print(f"{n:>7} {cfg:>8} {r:>10.1f} {c:>11.1f} {g:>15.1f} {r / g:>6.2f}   {load}", flush=True)
            if args.parts:
                render, refresh = time_parts(root, args.writes, f"{n}")
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                print(f"{n:>7} parts: render INDEX.md {render:.2f} ms, warm vector refresh after a write "
                      f"{refresh:.2f} ms   {load}", flush=True)


if __name__ == "__main__":
    main()
