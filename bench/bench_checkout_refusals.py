"""How often a person's ``git checkout`` is refused while agents write, and why (issue 25 item d).

    python bench/bench_checkout_refusals.py                 # 80 checkouts
    python bench/bench_checkout_refusals.py --checkouts 200
    python bench/bench_checkout_refusals.py --api           # agents: 2 API processes, model loaded

Two agent CLI processes write continuously (``vault-mem remember``, one process per write,
five keys each) on a fresh vault; the person runs ``git checkout side`` and back, alternating,
0.2 s apart (``--api``: two long-lived processes writing through the Python API with the
vault's own embedder loaded, as an MCP server does, instead of a process per write). Each first try is classified by git's message: went through; refused for git's
``index.lock`` (vault-mem holds it while a commit lands); refused because INDEX.md or an
agent's memory file is changed on disk (a write in flight). After a refusal HEAD must not have
moved and the person retries every 0.1 s, up to 10 times, as a person would; a checkout still
refused then is reported. At the end: ``git fsck`` and ``git status``. Timings depend on the
machine's load, which is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PY = sys.executable


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkouts", type=int, default=80)
    ap.add_argument("--api", action="store_true", help="agents are 2 API processes with the model loaded")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vault-mem-checkouts-"))
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    if args.api:
        env.pop("VAULT_MEM_EMBEDDER")  # the vault's own (vault.toml: the local model)
    root = work / "vault"

    def git(*a: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True, env=env)

    subprocess.run([PY, "-m", "vault_mem", "init", str(root)], env=env, check=True, capture_output=True)
    subprocess.run([PY, "-m", "vault_mem", "--vault", str(root), "remember", "seed", "-d", "seed"], env=env,
                   check=True, capture_output=True)
    home = git("symbolic-ref", "--short", "HEAD").stdout.strip()
    git("branch", "side")
    stop = threading.Event()
    writes = {"acknowledged": 0, "refused": 0}

    def agent(n: int) -> None:
        k = 0
        while not stop.is_set():
            r = subprocess.run([PY, "-m", "vault_mem", "remember", f"a{n}-{k % 5}", "-d", f"agent {n} note {k}",
                                "--body", f"b {k}"], cwd=root, env=env, capture_output=True, text=True)
            writes["acknowledged" if r.returncode == 0 else "refused"] += 1
            k += 1

    def api_agent(n: int) -> None:
        code = ("import sys; from pathlib import Path; from vault_mem import Vault\n"
                "v = Vault(Path(sys.argv[1])); v.recall('warm up the model'); k = 0; ok = bad = 0\n"
                "while not Path(sys.argv[2]).exists():\n"
                "    try:\n"
                f"        v.remember(f'a{n}-{{k % 5}}', f'agent {n} note {{k}}', f'b {{k}}'); ok += 1\n"
                "    except Exception: bad += 1\n"
                "    k += 1\n"
                "print(ok, bad)\n")
        r = subprocess.run([PY, "-c", code, str(root), str(work / "stop")], cwd=root, env=env,
                           capture_output=True, text=True)
        ok, bad = (int(x) for x in (r.stdout.split() or ["0", "0"])[:2])
        writes["acknowledged"] += ok
        writes["refused"] += bad

    agents = [threading.Thread(target=api_agent if args.api else agent, args=(n,)) for n in range(2)]
    for t in agents:
        t.start()
    time.sleep(8 if args.api else 2)  # the API agents load the model first
    kinds: dict[str, int] = {}
    examples: dict[str, str] = {}
    broken: list[str] = []
    try:
        for i in range(args.checkouts):
            target = "side" if i % 2 == 0 else home
            before = git("symbolic-ref", "HEAD").stdout.strip()
            co = git("checkout", "-q", target)
            if co.returncode == 0:
                kind = "went through"
            elif "index.lock" in co.stderr:
                kind = "refused: index.lock"
            elif "would be overwritten" in co.stderr:
                files = re.findall(r"^\t(\S+)$", co.stderr, re.MULTILINE)
                kind = "refused: " + ("INDEX.md" if files == ["INDEX.md"] else
                                      "INDEX.md and a memory file" if "INDEX.md" in files else "a memory file")
            else:
                kind = "refused: other"
            kinds[kind] = kinds.get(kind, 0) + 1
            examples.setdefault(kind, co.stderr.strip()[:300])
            if co.returncode != 0:
                if git("symbolic-ref", "HEAD").stdout.strip() != before:
                    broken.append(f"HEAD moved after a refused checkout of {target}")
                for _ in range(10):
                    time.sleep(0.1)
                    co = git("checkout", "-q", target)
                    if co.returncode == 0:
                        break
                else:
                    broken.append(f"checkout {target} refused 11 times: {co.stderr.strip()[:200]}")
            time.sleep(0.2)
    finally:
        stop.set()
        (work / "stop").write_text("")
        for t in agents:
            t.join()
    if git("symbolic-ref", "--short", "HEAD").stdout.strip() != home:
        git("checkout", "-q", home)
    fsck_ok, status = git("fsck", "--no-progress").returncode == 0, git("status", "--porcelain").stdout.splitlines()
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"checkouts (first tries)": kinds, "agent writes": writes, "refused 11 times or HEAD moved": broken,
                      "git fsck ok": fsck_ok, "git status at the end": status[:5],
                      "load average": [round(x, 1) for x in os.getloadavg()]}, indent=1))
    for kind, text in examples.items():
        if kind != "went through":
            print(f"{kind}: {text}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
