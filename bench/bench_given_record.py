"""What reading the record of commits that gave a file its bytes from elsewhere costs
(``store/provenance.given_recorded``, read whole by every check of a file that takes approval),
at the sizes it can reach: a few lines, and its cap (``_GIVEN_MAX_BYTES``, 4 MiB).

    python bench/bench_given_record.py [--lines 10,1000,FULL] [--rounds 15]

Writes a record of N lines, each of the shape ``record_given`` writes (a commit id, a blob id, a
JSON path), into a temporary git folder, then reads it ``--rounds`` times. ``FULL``: as many
lines as the cap holds. The same run's baseline: reading the same bytes with ``read_own`` alone
(the file's read without the parse). Prints CPU p50 (ms) of each, then the load average.
Asserts nothing.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from vault_mem.store import provenance  # noqa: E402
from vault_mem.store.files import read_own  # noqa: E402


def _line(i: int) -> str:
    return f"{i:040x} {i * 7:040x} {json.dumps(f'.claude/agents/peer-{i}.md')}\n"


def _timed(fn, rounds: int) -> float:
    out = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        out.append((time.process_time() - start) * 1000)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", default="10,1000,FULL")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    cap = provenance._GIVEN_MAX_BYTES  # noqa: SLF001 - the bench measures the record at its cap
    with tempfile.TemporaryDirectory() as tmp:
        common = Path(tmp) / ".git"
        folder = common / "vault-mem"
        folder.mkdir(parents=True, mode=0o700)
        path = folder / provenance.GIVEN_ELSEWHERE
        for want in args.lines.split(","):
            lines, size = [], 0
            limit = None if want == "FULL" else int(want)
            i = 0
            while limit is None or i < limit:
                line = _line(i)
                if size + len(line) > cap:
                    break
                lines.append(line)
                size += len(line)
                i += 1
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.write(fd, "".join(lines).encode("ascii"))
            os.close(fd)
            found = provenance.given_recorded(common)
            assert found is not None and len(found) == len(lines), "the record was not read whole"
            parsed = _timed(lambda: provenance.given_recorded(common), args.rounds)
            raw = _timed(lambda: read_own(path, max_bytes=cap + 1), args.rounds)
            print(
                f"{len(lines):>7} lines ({size / 1024:,.0f} KB): given_recorded {parsed:.1f} ms CPU p50, "
                f"the read alone {raw:.1f} ms"
            )
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()), f"on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
