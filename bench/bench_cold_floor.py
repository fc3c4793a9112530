"""The floor of a cold one-shot ``vault-mem recall`` without a daemon, part by part: each part a
fresh process alone, the parts alternating within a round (the first round not counted), beside
the whole command in the same rounds.

    python bench/bench_cold_floor.py --vault V100K [--vault V1K] --rounds 6 [--query Q] [--person EMAIL]

Parts (CPU of the process and the programs it waited for, and wall, ms p50 (min-max)):
- ``python``: the interpreter's start alone (``python -c pass``);
- ``imports``: the start and the modules a recall imports before it reads (``adapters.cli``,
  ``vault.core``, ``index.sidecar``, ``index.search``);
- ``model``: the start, the bundled model's load (its ONNX session) and one query embedded;
- ``listing``: GNU find's listing of the type folders with the stat data the no-change check
  compares (the command a read without a watcher runs: ``index.listing``), one process;
- ``recall``: the whole ``python -m vault_mem --vault V recall Q --json`` (no daemon, the model).

A read needs the start, the imports, the listing and the model (the model's load can overlap
the listing on a second core, nothing else can), so ``imports + listing`` is the serial floor
on two idle cores and ``imports + listing + model - python`` the CPU floor. ``--vault`` per
size; its vectors must be under the bundled model's id (``bench/local_stamp.py``), else the
recall embeds owed vectors. Prints the load before and after each vault. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

IMPORTS = (
    "import vault_mem.adapters.cli, vault_mem.vault.core, vault_mem.index.sidecar, vault_mem.index.search"
)
MODEL = (
    "from vault_mem.embed.local import LocalEmbedder; e = LocalEmbedder(); e.load(); "
    "e.embed_batch(['deploy admin portal'], kind='query')"
)


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
    wall, after = (time.perf_counter() - t) * 1000, resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, action="append", required=True)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--query", default="deploy admin portal")
    ap.add_argument("--person", default="bench@example.invalid")
    args = ap.parse_args()
    env = {
        **os.environ,
        "VAULT_MEM_DAEMON": "off",
        "PYTHONPATH": str(HERE.parent),
        "GIT_AUTHOR_NAME": "bench",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_AUTHOR_EMAIL": args.person,
        "GIT_COMMITTER_EMAIL": args.person,
    }
    py = sys.executable
    for vault in args.vault:
        print(f"{vault}: {load_line()}", flush=True)
        folders = [
            f for f in ("facts", "decisions", "preferences", "procedures", "notes") if (vault / f).is_dir()
        ]
        parts = {
            "python": [py, "-c", "pass"],
            "imports": [py, "-c", IMPORTS],
            "model": [py, "-c", MODEL],
            "listing": ["find", "-L", *folders, "-mindepth", "1", "-printf", r"%s %T@ %C@ %p\0"],
            "recall": [py, "-m", "vault_mem", "--vault", str(vault), "recall", args.query, "--json"],
        }
        got: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in parts}
        for r in range(args.rounds + 1):
            for name, cmd in parts.items():
                if name == "listing":
                    cpu, wall = timed(["sh", "-c", 'cd "$0" && exec "$@" > /dev/null', str(vault), *cmd], env)
                else:
                    cpu, wall = timed(cmd, env)
                if r:
                    got[name][0].append(cpu)
                    got[name][1].append(wall)
        print(f"  {args.rounds} rounds, CPU ms p50 (min-max) / wall ms p50 (min-max):")
        for name, (cpu, wall) in got.items():
            print(f"  {name:>8}: CPU {p50(cpu)} / wall {p50(wall)}", flush=True)
        med = {k: statistics.median(v[0]) for k, v in got.items()}
        print(
            f"  floor (CPU): imports + listing + model - python = "
            f"{med['imports'] + med['listing'] + med['model'] - med['python']:.0f} ms; the recall {med['recall']:.0f}"
        )
        print(f"  {load_line()}", flush=True)


if __name__ == "__main__":
    main()
