"""One-shot ``vault-mem remember`` at 1k and 10k memories, without a daemon and with one, this
checkout against another in the same run (issue 29: "one-shot CLI ``remember`` <= 200 ms at 10k").

    python bench/bench_oneshot_write.py --base /dev/shm/oneshot --old /path/to/old/checkout
    python bench/bench_oneshot_write.py --base B --old OLD --sizes 10000 --rounds 20 --modes off

For each size, a vault of ``corpus.packed_vault`` at ``BASE/vm-N`` (built once, kept for the next
run) and a fresh ``cp -a`` copy of it for the old checkout's commands (``BASE/vm-N-old``; each
checkout finds the state its own last write left, as one installed vault-mem does: the record of
the HEAD it checked, the shape of the folder tree it wrote); then, per mode, ``bench_oneshot.py
--kinds remember`` on the pair: ``off`` runs no daemon, ``on`` runs each checkout's daemon on its
vault (the command hands it the write). Prints bench_oneshot.py's lines (CPU p50 / p95 of the
command and the git processes it waited for, wall p50 / p95, the daemon's CPU per command) and
the load average. OLD: a checkout of the code to compare with (``git archive main | tar -x -C
OLD``: byte-compiled by bench_oneshot.py, which a checkout in use may not allow). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="where the vaults are built and kept")
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare with (its top folder)")
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--modes", default="off,on", help="of off (no daemon) and on (a daemon per vault)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import corpus

    args.base.mkdir(parents=True, exist_ok=True)
    for n in (int(x) for x in args.sizes.split(",")):
        vault = args.base / f"vm-{n}"
        if not (vault / "vault.toml").exists():
            print(f"building {vault} ({n} memories)", flush=True)
            corpus.packed_vault(vault, n)
        for mode in args.modes.split(","):
            twin = args.base / f"vm-{n}-old"
            shutil.rmtree(twin, ignore_errors=True)
            subprocess.run(["cp", "-a", str(vault), str(twin)], check=True)
            shutil.rmtree(twin / ".vault-mem" / "trees", ignore_errors=True)  # what the old code never wrote
            print(f"== {n} memories, daemon {mode}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
            subprocess.run([sys.executable, str(HERE / "bench_oneshot.py"), "--vault", str(vault), "--old-vault", str(twin),
                            "--old", str(args.old), "--kinds", "remember", "--rounds", str(args.rounds),
                            *(["--daemon"] if mode == "on" else [])], check=True)


if __name__ == "__main__":
    main()
