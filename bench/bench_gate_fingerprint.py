"""What one reconcile pays for the secret gate's fingerprint (index/scan.py ``gate_fingerprint``):
the kept digest (a ``stat`` of each rule file) against a fresh read and hash of them all (what
every call paid before the digest was kept; measured in the same run by forgetting the kept one
before each call).

    python bench/bench_gate_fingerprint.py [--calls 400]

Prints the CPU milliseconds per call of each, and the load average before and after.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time

from vault_mem.index import scan


def _per_call(calls: int, *, forget: bool) -> float:
    start = time.process_time()
    for _ in range(calls):
        if forget:
            scan._KEPT_FINGERPRINT[:] = [None, ""]
        scan.gate_fingerprint()
    return (time.process_time() - start) * 1000 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    scan.gate_fingerprint()  # the modules' files found once (imported or not), as in a command
    fresh = _per_call(args.calls, forget=True)
    kept = _per_call(args.calls, forget=False)
    print(f"rule files: {len(scan.GATE_MODULES)}, calls: {args.calls}")
    print(f"fresh read and hash: {fresh:.3f} ms CPU per call")
    print(f"kept (stat only):    {kept:.3f} ms CPU per call")
    print(
        f"load average: {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
