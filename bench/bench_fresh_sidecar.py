"""What does a new sidecar cost? ``python bench/bench_fresh_sidecar.py [--n 40] [--rounds 5] [--dir DIR]``.

Opens ``--n`` new sidecars (``index/db.connect`` of a file that does not exist yet: the file made,
its schema, WAL) made directly at the current schema (``index/fresh_schema.py``), and ``--n``
made by running every migration from the first (the way a new sidecar was made before, forced
here by giving the module another version), in turns, ``--rounds`` times; prints the median CPU
milliseconds of this process per sidecar for each, and the load. ``--dir``: where the files go
(default a new folder under ``$TMPDIR``; ``/dev/shm`` to leave the disk out).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import tempfile
from pathlib import Path

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.index import db, fresh_schema


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench_fresh_sidecar_", dir=args.dir))
    version = fresh_schema.VERSION
    figures: dict[str, list[float]] = {"direct": [], "migrations": []}
    try:
        db.connect(base / "warm.db").close()  # imports, the driver, sqlite-vec loaded once
        for r in range(args.rounds):
            for way in (("direct", "migrations") if r % 2 == 0 else ("migrations", "direct")):
                fresh_schema.VERSION = version if way == "direct" else -1
                folder = base / f"{way}-{r}"
                folder.mkdir()
                start = _cpu()
                for i in range(args.n):
                    db.connect(folder / f"{i}.db").close()
                figures[way].append((_cpu() - start) / args.n * 1e3)
    finally:
        fresh_schema.VERSION = version
        shutil.rmtree(base, ignore_errors=True)
    for way, ms in figures.items():
        print(f"new sidecar, {way:<10}  {statistics.median(ms):6.2f} ms CPU each (median of {args.rounds} x {args.n})")
    print(load_line())


if __name__ == "__main__":
    main()
