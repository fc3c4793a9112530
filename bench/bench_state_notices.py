"""What a daemon's read pays for carrying the vault's notices as they are at that read
(``Workspace.state_notices``), against the copy of the notices taken at its start that it
attached before (the same-run baseline).

    python bench/bench_state_notices.py [--rounds 300]

Makes a vault in a temporary folder (``vault-mem init``, keyword-only), opens it as the daemon
does and times, in this process: the baseline (a copy of a list of notices), the answer when
nothing changed since the last read (the ``stat`` stamp alone), and the answer after HEAD moved
(an agent write's commit: the notices computed again). Prints the medians (min-max) in
milliseconds, CPU time of this thread, and the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _figure(samples: list[float]) -> str:
    ms = [s * 1e3 for s in samples]
    return f"{statistics.median(ms):.3f} ms ({min(ms):.3f}-{max(ms):.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ.update(
            {
                "HOME": str(home / "home"),
                "XDG_CONFIG_HOME": str(home / "xdg"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "VAULT_MEM_EMBEDDER": "none",
                "GIT_AUTHOR_NAME": "Bench",
                "GIT_AUTHOR_EMAIL": "bench@example.com",
                "GIT_COMMITTER_NAME": "Bench",
                "GIT_COMMITTER_EMAIL": "bench@example.com",
            }
        )
        (home / "home").mkdir()
        root = home / "v"
        subprocess.run(
            [sys.executable, "-m", "vault_mem", "init", str(root)], check=True, capture_output=True
        )
        from vault_mem.vault.core import Vault

        vault = Vault(root)
        notes = vault.take_notices()
        ws = vault.ws
        ws.state_notices()
        clock = time.thread_time
        base, kept, moved = [], [], []
        for _ in range(args.rounds):
            t = clock()
            list(notes)
            base.append(clock() - t)
            t = clock()
            ws.state_notices()
            kept.append(clock() - t)
        for i in range(max(5, args.rounds // 20)):
            vault.remember(f"bench-{i}", f"A bench memory {i}", "body")  # a commit: HEAD moves
            t = clock()
            ws.state_notices()
            moved.append(clock() - t)
        vault.close()
    print(f"baseline (the notices at start, copied): {_figure(base)}")
    print(f"nothing changed (stat stamp):            {_figure(kept)}")
    print(f"after HEAD moved (computed again):       {_figure(moved)}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
