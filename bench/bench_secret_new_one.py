"""CPU of the secret gate over one long line of "new one X" with no "revoked" in it (review of
blind31, mendsec31): ``new_values`` read the whole line again for each match, quadratic in the
line's length; it reads each line once now. Beside it, the same size of plain prose as the
same-run baseline.

    git archive main | tar -x -C /tmp/old                            # a baseline checkout
    python bench/bench_secret_new_one.py [--code /tmp/old] [--sizes 65536,131072,1048576]

Each checkout runs in a process of its own (its ``vault_mem`` first on ``sys.path``); CPU is
``time.process_time`` around ``find_secrets`` alone. Prints the figures and the load average.
Asserts nothing. (Keep the sizes small for a checkout before the fix: 256 KB took 32 s there.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from vault_mem.model.secrets import find_secrets
import vault_mem
for size in map(int, sys.argv[2].split(",")):
    for name, unit in (("plain prose", "the quick brown fox jumps over the lazy dog "), ("new one X", "new one abcdefgh ")):
        text = (unit * (size // len(unit) + 1))[:size]
        t = time.process_time()
        find_secrets(text)
        print(f"  {name:12} {size // 1024:6} KB  {time.process_time() - t:7.2f} s CPU", flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, help="another checkout to measure as well")
    ap.add_argument("--sizes", default="65536,131072,1048576", help="line lengths in bytes, comma-separated")
    args = ap.parse_args()
    print(f"load {os.getloadavg()}")
    for code in [HERE] + ([args.code.resolve()] if args.code else []):
        print(code)
        subprocess.run([sys.executable, "-c", _CHILD, str(code), args.sizes], check=True, cwd="/")


if __name__ == "__main__":
    main()
