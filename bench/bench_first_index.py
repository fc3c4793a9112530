"""How long the first index of a vault takes: ``python bench/bench_first_index.py --n 5000``.

A vault of ``--n`` realistic memories (``corpus.write_vault``: 20-60 tokens each, one commit,
nothing indexed) is indexed from nothing the way a person does it after cloning one or copying
files in: ``vault-mem reindex`` (the first ``recall`` takes the same path: reconcile, then embed
what is owed), with the bundled model, in a fresh process so the model load and the peak memory
are its own. Prints the total, a split by phase (reading and parsing the files, the model,
storing vectors, the rows and keyword index, git), memories/s, the peak RSS and the load
average. Asserts nothing: the goal (5,000 memories in at most 60 s on 2 cores) is read off here.

    python bench/bench_first_index.py --n 5000
    VAULT_MEM_THREADS=1 python bench/bench_first_index.py --n 2000
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import load_line, write_vault  # bench/ is on sys.path when run as a script

PHASES = ("read+parse", "  of which YAML", "model (tokenize+onnx)", "store vectors", "rows+FTS", "git", "other")


def _timed(owner, name: str, phase: str, spent: dict[str, float], active: set[str]) -> None:
    """Wrap ``owner.name`` so the seconds spent in it (outermost call only) add to ``phase``."""
    fn = getattr(owner, name)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if phase in active:
            return fn(*args, **kwargs)
        active.add(phase)
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[phase] = spent.get(phase, 0.0) + time.perf_counter() - t0
            active.discard(phase)

    setattr(owner, name, wrapper)


def child(root: str) -> None:
    """Run ``vault-mem reindex`` in this process with timers around each phase; print JSON."""
    from vault_mem.adapters import cli
    from vault_mem.embed.local import LocalEmbedder
    from vault_mem.index import sidecar, vectors
    from vault_mem.model import frontmatter_handler, memory
    from vault_mem.store.git import GitRepo

    spent: dict[str, float] = {}
    active: set[str] = set()
    _timed(sidecar.Sidecar, "_read", "read+parse", spent, active)
    _timed(memory, "parse_memory", "parse_memory", spent, active)
    _timed(frontmatter_handler, "load_yaml_and_comments", "  of which YAML", spent, active)
    _timed(LocalEmbedder, "embed_batch", "model (tokenize+onnx)", spent, active)
    _timed(vectors.VectorStore, "_store_vectors", "store vectors", spent, active)
    _timed(sidecar.Sidecar, "_process", "process", spent, active)
    for name, value in list(vars(GitRepo).items()):
        if callable(value) and (name == "__init__" or not name.startswith("__")):
            _timed(GitRepo, name, "git", spent, active)
    t0 = time.perf_counter()
    rc = cli.main(["--vault", root, "reindex", "--json"])
    total = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    spent["rows+FTS"] = spent.pop("process", 0.0) - spent.get("read+parse", 0.0)
    spent.pop("parse_memory", None)
    spent["other"] = total - sum(v for k, v in spent.items() if not k.startswith(" "))
    print(json.dumps({"rc": rc, "total": total, "phases": spent, "maxrss_kb": usage.ru_maxrss,
                      "cpu_s": usage.ru_utime + usage.ru_stime}), file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        t0 = time.perf_counter()
        write_vault(root, args.n)
        made = time.perf_counter() - t0
        print(f"vault of {args.n} memories written and committed in {made:.1f} s")
        print(f"before: {load_line()}")
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        env.pop("VAULT_MEM_PROGRESS", None)
        proc = subprocess.run([sys.executable, __file__, "--child", str(root)], check=False, capture_output=True,
                              text=True, env=env, stdin=subprocess.DEVNULL)
        lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("{")]
        if proc.returncode or not lines:
            sys.exit(f"the reindex failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        data = json.loads(lines[-1])
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        total = data["total"]
        indexed = report.get("added", 0) + report.get("updated", 0)
        print(f"first index (vault-mem reindex): {total:.1f} s for {indexed} memories "
              f"({indexed / total:.0f} memories/s), {report.get('embedded')} embedded, "
              f"{len(report.get('problems', []))} problem files")
        for phase in PHASES:
            secs = data["phases"].get(phase, 0.0)
            print(f"  {phase:<24} {secs:6.1f} s  {100 * secs / total:4.0f}%")
        print(f"peak RSS {data['maxrss_kb'] / 1024:.0f} MB; CPU {data['cpu_s']:.1f} s "
              f"(threads: VAULT_MEM_THREADS={os.environ.get('VAULT_MEM_THREADS', 'default')})")
        print(f"after:  {load_line()}")


if __name__ == "__main__":
    main()
