"""How long one ``remember`` takes (new key; file, sidecar, INDEX.md and commit included), the
two ways it is called, next to plain git on a repository of the same shape, in one run.

    python bench/bench_remember.py                                   # N = 1k, 10k; none and local
    python bench/bench_remember.py --sizes 50000 --writes 20 --embedder none
    python bench/bench_remember.py --sizes 10000 --embedder local --profile /tmp/prof   # pyinstrument

Per size, a vault of ``N`` realistic memories (``bench/corpus.py``: five type folders, one
commit), indexed; with ``local`` among the configurations it is a copy of the shared bench vault
``--base/vm-bench-N`` whose vectors the real bundled model made (built once by
``corpus.indexed_vault``, as for bench_recall.py and bench_edit_latency.py), so the timed writes
pay only for their own work. The baseline is a plain git
repository with the same files and folders: a ``git clone`` of the vault. Both repositories are
packed first (``git gc``), as a repository that has lived a while is; a freshly filled one holds
N loose objects, which makes every git command slower than a user's.

Then, per configuration (``VAULT_MEM_EMBEDDER``), ``--writes`` rounds, each of:
- ``git``: ``git add <new file>`` + ``git commit`` in the plain repository (hooks skipped);
- ``api``: ``Vault.remember`` of a new key in this process, kept open and warmed first (one
  recall: the model loaded; one untimed write), as an agent's long-lived process does;
- ``cli``: ``python -m vault_mem remember KEY --description ... --body ...`` as a new process
  each call (interpreter start, imports, model load when the write embeds, the write), as an
  agent's shell tool or a script does.
The three alternate within a round, so that the machine's load (shared, noisy) weighs on all
three alike. Prints p50/p95 of each, the ratios of the p50s to git's, and, for the API, the p50
of two of its parts timed by wrappers around the real functions: ``git status`` (the memory
files a person changed, :func:`vault_mem.vault.steps.changed_memory_paths`) and the commit
(``GitRepo.commit_paths``); then the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import PartTimer, git, indexed_vault, load_line, packed_vault, pct

from vault_mem import Vault
from vault_mem.vault import steps


def prepare(root: Path, plain: Path, n: int, *, vectors: bool, base: Path) -> str:
    """The vault at ``root`` (indexed; with the real model's vectors when asked) and its
    plain-git twin at ``plain``, both packed. Returns a note of what it cost."""
    t0 = time.perf_counter()
    if vectors:
        # the shared bench vault (corpus.indexed_vault: built once, ~8 min at 10k), copied
        src = base / f"vm-bench-{n}"
        indexed_vault(src, n)
        shutil.copytree(src, root, symlinks=True)
        # the copy has new inodes and times: git's index would see every file stat-dirty, and a
        # write's `git status` (which never writes the index back) would re-hash all N files
        subprocess.run(["git", "update-index", "-q", "--refresh"], check=False, cwd=root, capture_output=True)
        note = f"copy of {src} (real vectors) {time.perf_counter() - t0:.0f} s"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(plain)], check=True)
        for repo in (root, plain):
            git(repo, "gc", "-q")
        return note
    packed_vault(root, n, twin=plain)
    return f"files + index {time.perf_counter() - t0:.0f} s"


def write_text(seed: str) -> tuple[str, str]:
    """(description, body) of one timed write: a realistic memory with a detail of its own, so
    that no two writes embed the same text (none comes from the embedding cache) and none is a
    near-duplicate of the vault's memories (the duplicate check does its usual work, no more)."""
    h = int(hashlib.sha256(seed.encode()).hexdigest()[:8], 16)
    return (f"Release train {h % 9973} ships on the second Tuesday after the freeze",
            f"Agreed in planning: the freeze starts {h % 28 + 1} days before; hotfixes skip it (ref {seed}).")


def time_config(root: Path, plain: Path, embedder: str, writes: int, tag: str, profile: Path | None) -> dict:
    os.environ["VAULT_MEM_EMBEDDER"] = embedder
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "VAULT_MEM_DAEMON": "off"}
    api, cli, plain_ms = [], [], []
    profiler = None
    if profile is not None:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
    status = PartTimer(steps.changed_memory_paths)
    with Vault(root) as vault:
        vault.recall("what does the benchmark write about")  # a warm process: model loaded
        vault.remember(f"warm-{tag}", "A warm-up memory, not timed", "warm up")
        commit = PartTimer(vault.repo.commit_paths)
        vault.repo.commit_paths = commit  # type: ignore[method-assign]
        steps.changed_memory_paths = status  # looked up at call time by finish_write
        try:
            for i in range(writes):
                p = plain / "facts" / f"plain-{tag}-{i}.md"
                p.write_text(f"---\ndescription: {write_text(f'{tag}-git-{i}')[0]}\n---\nbody\n")
                t = time.perf_counter()
                git(plain, "add", str(p.relative_to(plain)))
                git(plain, "commit", "-q", "--no-verify", "-m", f"plain {i}")
                plain_ms.append((time.perf_counter() - t) * 1000)

                description, body = write_text(f"{tag}-api-{i}")
                if profiler is not None:
                    profiler.start()
                t = time.perf_counter()
                vault.remember(f"new-{tag}-api-{i}", description, body)
                api.append((time.perf_counter() - t) * 1000)
                if profiler is not None:
                    profiler.stop()

                description, body = write_text(f"{tag}-cli-{i}")
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(root), "remember",
                                f"new-{tag}-cli-{i}", "--description", description, "--body", body],
                               check=True, capture_output=True, env=env)
                cli.append((time.perf_counter() - t) * 1000)
        finally:
            steps.changed_memory_paths = status.fn
    if profiler is not None and profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
        out = profile / f"remember-{tag}.txt"
        out.write_text(profiler.output_text(unicode=False, color=False, show_all=False))
        print(f"  profile: {out}", flush=True)
    # commit_paths and git status of the timed API writes only (the CLI's run in its own process)
    return {"git": pct(plain_ms), "api": pct(api), "cli": pct(cli), "status": pct(status.ms[-writes:]),
            "commit": pct(commit.ms[-writes:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--writes", type=int, default=15)
    ap.add_argument("--embedder", default="none,local", help="comma-separated: none, local")
    ap.add_argument("--base", type=Path, default=Path(tempfile.gettempdir()),
                    help="where the shared bench vaults with real vectors live (vm-bench-N, built once)")
    ap.add_argument("--profile", type=Path, default=None, help="write a pyinstrument profile of the API writes here")
    args = ap.parse_args()
    configs = [c.strip() for c in args.embedder.split(",") if c.strip()]
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "b@example.com"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "b@example.com")):
        os.environ.setdefault(env, val)
    print(f"writes={args.writes} per configuration; ms p50/p95; ratio = p50 / git's p50; both repositories packed")
    print(f"{'N':>7} {'embedder':>8} {'git add+commit':>15} {'api remember':>14} {'cli remember':>14} "
          f"{'api/git':>8} {'cli/git':>8} {'api: status':>12} {'api: commit':>12}   load average")
    for n in (int(s) for s in args.sizes.split(",")):
        tmp = Path(tempfile.mkdtemp(prefix="bench-remember-"))
        try:
            root, plain = tmp / "vault", tmp / "plain"
            note = prepare(root, plain, n, vectors="local" in configs, base=args.base)
            print(f"{n:>7} ready: {note}; {load_line()}", flush=True)
            for cfg in configs:
                r = time_config(root, plain, cfg, args.writes, f"{cfg}-{n}",
                                args.profile / f"{n}" if args.profile else None)
                g, a, c = r["git"]["p50"], r["api"]["p50"], r["cli"]["p50"]
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                print(f"{n:>7} {cfg:>8} {g:>7.0f}/{r['git']['p95']:<7.0f} {a:>6.0f}/{r['api']['p95']:<7.0f} "
                      f"{c:>6.0f}/{r['cli']['p95']:<7.0f} {a / g:>8.2f} {c / g:>8.2f} {r['status']['p50']:>12.1f} "
                      f"{r['commit']['p50']:>12.1f}   {load}", flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
