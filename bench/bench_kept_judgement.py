"""What keeping the peers' judgement in the sidecar costs a process that brought it along one
change (issue 29, mcp30): the judgement as one JSON value rewritten whole (schema 18, before
mcp30) against a row per path (schema 19, ``kept_judgement_paths``) rewritten whole and by the
paths judged again (``delta``), and reading it back.

    python bench/bench_kept_judgement.py                # 100,000 paths, every one a peer's
    python bench/bench_kept_judgement.py --n 10000 --rounds 8
    python bench/bench_kept_judgement.py --table V --rounds 6   # the kept table's fill over a real sidecar

A fresh sidecar (:func:`vault_mem.index.db.connect`) in a temporary folder and a synthetic
judgement of ``--n`` paths (every 10th judged the person's, the rest a peer's); per round, in
turn: ``json_whole`` the m018 form (``json.dumps`` of the judgement and one row written, in a
table of that form), ``rows_whole`` :func:`~vault_mem.index.kept_judgement.keep_judgement` with
no delta (every row dropped and written), ``rows_delta`` the same brought along one path
judged again (one row written, the state row); ``read_json`` / ``read_rows`` the judgement read
back (``json.loads`` / :func:`~vault_mem.index.kept_judgement.kept_judgement`). CPU ms of this
process (``time.process_time``, the fsyncs' waits not counted), p50 (min-max), and the load.
``--table V``: instead, the peers' kept table (:class:`~vault_mem.index.pathsets.PathTable`)
filled and dropped ``--rounds`` times on the sidecar of the vault ``V`` (a bench vault: every
``files`` row's path taken as a peer's, as in a clone of a team's vault; only the temporary
database is written), CPU ms of each fill: what a judgement that no read used paid for it before
perf29 (the MCP server's start-up thread). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vault_mem.index.db import connect  # noqa: E402
from vault_mem.index.kept_judgement import keep_judgement, kept_judgement  # noqa: E402


def timed(fn) -> float:
    t0 = time.process_time()
    fn()
    return (time.process_time() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--table", type=Path, metavar="VAULT", help="time the kept table's fill on this vault's sidecar")
    args = ap.parse_args()
    if args.table:
        return table_fill(args.table, args.rounds)
    rows = [(f"facts/m-{i:06d}.md", None if i % 10 == 0 else "peer@elsewhere.invalid",
             None if i % 10 == 0 else "peer") for i in range(args.n)]
    with tempfile.TemporaryDirectory() as tmp:
        db = connect(Path(tmp) / "index.db")
        db.execute("CREATE TABLE old_form (id INTEGER PRIMARY KEY, state TEXT, token TEXT, judgement TEXT)")
        out: dict[str, list[float]] = {k: [] for k in ("json_whole", "rows_whole", "rows_delta", "read_json", "read_rows")}
        load = [os.getloadavg()[0]]
        for r in range(args.rounds):
            def json_whole() -> None:
                text = json.dumps({"peers": {p: [e, s] for p, e, s in rows if s is not None},
                                   "others": sorted(p for p, _e, s in rows if s is None)})
                with db.write():
                    db.execute("INSERT OR REPLACE INTO old_form VALUES (1, ?, ?, ?)", (f"s{r}", os.urandom(6).hex(), text))

            token: list[str | None] = [None]

            def rows_whole() -> None:
                token[0] = keep_judgement(db, f"whole {r}", None, lambda: rows)

            def rows_delta() -> None:
                one = rows[r + 1]
                keep_judgement(db, f"delta {r}", None, lambda: rows,
                               delta=(token[0], lambda: ([(one[0], None, None)], [])))

            out["json_whole"].append(timed(json_whole))
            out["rows_whole"].append(timed(rows_whole))
            out["rows_delta"].append(timed(rows_delta))
            out["read_json"].append(timed(lambda: json.loads(db.execute("SELECT judgement FROM old_form").fetchone()[0])))
            out["read_rows"].append(timed(lambda: kept_judgement(db)))
        load.append(os.getloadavg()[0])
        db.close()
    print(json.dumps({"n": args.n, "rounds": args.rounds, "load": load,
                      **{k: f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})" for k, v in out.items()}}, indent=1))
    return 0


def table_fill(root: Path, rounds: int) -> int:
    from vault_mem.index.pathsets import PathTable

    db = connect(root / ".vault-mem" / "index.db", made_for=root)
    paths = [r[0] for r in db.execute("SELECT path FROM files")]
    load = [os.getloadavg()[0]]
    fills = []
    for _ in range(rounds):
        made: list[PathTable] = []
        fills.append(timed(lambda: made.append(PathTable(db, paths))))
        made[0].drop()
    load.append(os.getloadavg()[0])
    db.close()
    print(json.dumps({"vault": str(root), "paths": len(paths), "rounds": rounds, "load": load,
                      "table_fill": f"{statistics.median(fills):.1f} ({min(fills):.1f}-{max(fills):.1f})"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
