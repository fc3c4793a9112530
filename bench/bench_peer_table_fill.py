"""The kept table of a read that leaves the peers out (:class:`vault_mem.index.pathsets.PathTable`),
filled two ways on one vault in one process, rounds alternating: from the peers' paths bound as one
JSON list (``json``, the way every read filled it before perf32) and from the sidecar's kept
judgement (``kept``, :func:`vault_mem.index.kept_judgement.kept_peers_sql`, when the row is the
judgement the read holds). Both tables must keep in the same rows (checked each round).

    python bench/bench_peer_table_fill.py --vault V --person person@elsewhere.invalid --rounds 9

``--vault``: a bench vault (``bench_mcp.py``'s build); ``--person``: the person here (another
email than the corpus's ``bench@example.invalid``: every memory a peer's). The first read judges
and keeps the judgement (whole, slow, not timed). Prints CPU and wall ms p50 (min-max) per way,
the first round not counted, and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--person", default="person@elsewhere.invalid")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    for var in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        os.environ[var] = args.person
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    os.environ["VAULT_MEM_DAEMON"] = "off"
    print(load_line(), flush=True)
    from vault_mem import Vault
    from vault_mem.index.kept_judgement import kept_peers_sql
    from vault_mem.index.pathsets import PathTable
    from vault_mem.vault import authors

    with Vault(args.vault) as vault:
        vault.reconcile()
        kept = vault._kept_peers
        ids = authors.identities(vault.ws)
        peers = kept.peer_memories(
            vault.ws, vault.sidecar, ids, authors.Origins(vault.ws, vault.sidecar, ids)
        )
        token = kept._base.token
        print(
            f"{len(peers)} peers' memories ({kept.last.how}), the row kept: {token is not None}", flush=True
        )
        db = vault.sidecar.db
        ways = {"json": None, "kept": lambda d, n: kept_peers_sql(d, token, n)}
        got: dict[str, tuple[list[float], list[float]]] = {w: ([], []) for w in ways}
        for r in range(args.rounds + 1):
            rows = {}
            for way, source in ways.items():
                c, w = time.process_time(), time.perf_counter()
                table = PathTable(db, peers, kept=source)
                cpu, wall = (time.process_time() - c) * 1000, (time.perf_counter() - w) * 1000
                rows[way] = {row[0] for row in db.execute(table.sql(db)[1:-1])}
                table.drop()
                if r:
                    got[way][0].append(cpu)
                    got[way][1].append(wall)
            if rows["json"] != rows["kept"]:
                raise SystemExit("the two tables keep in different rows")
        print(f"table fill, {args.rounds} rounds, {len(rows['json'])} rows kept in:")
        for way, (cpu, wall) in got.items():
            print(f"  {way:>4}: CPU p50 {p50(cpu)} ms, wall p50 {p50(wall)} ms", flush=True)
    print(load_line())


if __name__ == "__main__":
    main()
