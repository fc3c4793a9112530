"""What one memory-file read pays in the product's read path: the safe reader
(``store/files.read_memory_bytes``: the type folder's check, then the file opened never through a
link) and the sidecar's read of a file (``index/scan.read_file``: the safe reader, the parse and the
secret gate's verdict), the first time a file's bytes are read, again, and the bytes a write's gate just passed.

    python bench/bench_safe_read.py [--files 300] [--rounds 5] [--against DIR]

The vault is made under a path as deep as a person's (``/tmp/.../home/person/projects/app/memory``),
each file's text its own (so no scan is answered from another file's). ``--against DIR`` runs the
same in a second checkout (``git archive main | tar -x -C DIR``), each in its own process, in
turns, for a same-run baseline. Prints the CPU microseconds per read (the median of the rounds)
and the load average before and after. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_BODY = (
    "Deploys go through the staging cluster first; the release checklist lives in the wiki.\n"
    "Ask the on-call person before touching the database migrations (note {i}).\n"
) * 6


def _make_vault(base: Path, files: int, round_: int) -> Path:
    root = base / "home" / "person" / "projects" / "app" / "memory"
    (root / "notes").mkdir(parents=True)
    for i in range(files):
        (root / "notes" / f"note-{i}.md").write_text(
            f"---\ndescription: how deploys go, note {i}\ntags: [deploy, staging]\n---\n"
            f"{_BODY.format(i=f'{round_}.{i}')}"
        )
    return root


def _child(files: int, rounds: int) -> dict[str, float]:
    from vault_mem.index import scan
    from vault_mem.model.policy import WritePolicy
    from vault_mem.store.files import read_memory_bytes

    out: dict[str, list[float]] = {"safe_read": [], "first_read": [], "read_again": [], "after_write": []}
    for round_ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="bench_safe_read_") as tmp:
            root = _make_vault(Path(tmp), files, round_)  # texts of their own: no scan kept from a round
            rels = [f"notes/note-{i}.md" for i in range(files)]
            policy = WritePolicy(max_body_bytes=64 * 1024, max_file_bytes=80 * 1024)
            start = time.process_time()
            for rel in rels:
                read_memory_bytes(root, rel, max_bytes=80 * 1024)
            out["safe_read"].append((time.process_time() - start) * 1e6 / files)
            for name in ("first_read", "read_again"):
                start = time.process_time()
                for rel in rels:
                    scan.read_file(root, rel, max_bytes=80 * 1024, policy=policy)
                out[name].append((time.process_time() - start) * 1e6 / files)
            # files a write just made: the write gate passed their bytes (not timed), the
            # reconcile then reads them back
            for rel in rels:
                data = (root / rel).read_bytes().replace(b"note ", b"written note ", 1)
                (root / rel).write_bytes(data)
                policy.check_file(rel, data)
            start = time.process_time()
            for rel in rels:
                scan.read_file(root, rel, max_bytes=80 * 1024, policy=policy)
            out["after_write"].append((time.process_time() - start) * 1e6 / files)
    return {k: statistics.median(v) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, help="a second checkout (main's) run in turns, same run")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.files, args.rounds)))
        return
    trees = [("this", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
    load_before = os.getloadavg()[0]
    got: dict[str, dict[str, float]] = {}
    for name, tree in trees:
        env = dict(os.environ, PYTHONPATH=str(tree))
        run = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                "--files",
                str(args.files),
                "--rounds",
                str(args.rounds),
            ],
            env=env,
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        )
        got[name] = json.loads(run.stdout)
    print(f"files: {args.files} per round, rounds: {args.rounds}; CPU µs per read (median of rounds)")
    print(f"{'':34}" + "".join(f"{name:>12}" for name, _ in trees))
    labels = {
        "safe_read": "safe reader (read_memory_bytes)",
        "first_read": "sidecar read, new bytes",
        "read_again": "sidecar read, same bytes again",
        "after_write": "sidecar read of a write's bytes",
    }
    for key, label in labels.items():
        print(f"{label:34}" + "".join(f"{got[name][key]:12.1f}" for name, _ in trees))
    print(
        f"load average: {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
