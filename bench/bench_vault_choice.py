"""What finding the vault costs a command when a teammate's vault.toml gives it a choice.

    python bench/bench_vault_choice.py                  # 2,000 other vaults in trusted.json
    python bench/bench_vault_choice.py --entries 0

``store/finder.resolve_vaults`` reads trusted.json (this machine's records) only where there is a
choice between candidate folders: a working folder below a teammate's ``src/vault.toml`` beside
``memory/``. With one candidate (the project's top, inside ``memory/``) it reads nothing. This
makes a project (``memory/`` by ``vault-mem init``, a teammate's ``src/vault.toml``) and a
trusted.json holding ``--entries`` other vaults' approvals (the project's bench machine had 1,558
and 2.7 MB), then prints the CPU time of one ``resolve_vaults`` from each working folder, the
parse not kept from one to the next (a fresh process each time, as a command), interleaved over
``--rounds`` rounds (median), with the load average.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**os.environ, "XDG_CONFIG_HOME": str(base / "xdg"), "HOME": str(base), "VAULT_MEM_EMBEDDER": "none",
               "GIT_AUTHOR_NAME": "P", "GIT_AUTHOR_EMAIL": "p@x", "GIT_COMMITTER_NAME": "P",
               "GIT_COMMITTER_EMAIL": "p@x", "PYTHONPATH": str(ROOT)}
        proj = base / "proj"
        proj.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=proj, check=True, env=env)
        subprocess.run([sys.executable, "-m", "vault_mem", "init", str(proj / "memory")], cwd=proj, check=True,
                       env=env, capture_output=True)
        (proj / "src" / "app").mkdir(parents=True)
        (proj / "src" / "vault.toml").write_text("", encoding="utf-8")
        trusted = base / "xdg" / "vault-mem" / "trusted.json"
        data = json.loads(trusted.read_text(encoding="utf-8"))
        for i in range(a.entries):
            data["vaults"][f"/gone/vault-{i}"] = {"config": {
                "blob": f"{i:040x}", "text": "[agent]\nname = 'someone'\n" * 20, "history": [], "how": "trust",
                "approved_at": "2026-01-01T00:00:00+00:00"}}
        trusted.write_text(json.dumps(data), encoding="utf-8")
        probe = ("import time,sys;from pathlib import Path;from vault_mem.store.finder import resolve_vaults;"
                 "c=time.process_time();f=resolve_vaults(start=Path(sys.argv[1]));"
                 "print((time.process_time()-c)*1000, f.vaults[0].root.name)")
        places = {"memory/ (one candidate)": proj / "memory", "the top (one candidate)": proj,
                  "src/app (a choice)": proj / "src" / "app"}
        times: dict[str, list[float]] = {k: [] for k in places}
        for _ in range(a.rounds):
            for name, cwd in places.items():
                out = subprocess.run([sys.executable, "-c", probe, str(cwd)], env=env, capture_output=True,
                                     text=True, check=True).stdout.split()
                assert out[1] == "memory", out
                times[name].append(float(out[0]))
        print(f"trusted.json: {trusted.stat().st_size:,} bytes, {a.entries} other vaults; "
              f"load average {os.getloadavg()[0]:.1f}; {time.strftime('%H:%M:%S')}")
        for name, ms in times.items():
            print(f"  {name:26s} resolve_vaults CPU median {statistics.median(ms):6.2f} ms "
                  f"(min {min(ms):.2f}, {a.rounds} rounds)")


if __name__ == "__main__":
    main()
