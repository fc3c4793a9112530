"""How often a person's ``git checkout`` is refused while agents write, and why (issue 25 item d).

    python bench/bench_checkout_refusals.py                 # 80 checkouts
    python bench/bench_checkout_refusals.py --checkouts 200
    python bench/bench_checkout_refusals.py --api           # agents: 2 API processes, model loaded
    python bench/bench_checkout_refusals.py --stash         # the daemon runs; a stash/pop before each

Two agent CLI processes write continuously (``vault-mem remember``, one process per write,
five keys each) on a fresh vault; the person runs ``git checkout side`` and back, alternating,
0.2 s apart (``--api``: two long-lived processes writing through the Python API with the
vault's own embedder loaded, as an MCP server does, instead of a process per write). Each first try is classified by git's message: went through; refused for git's
``index.lock`` (vault-mem holds it while a commit lands); refused because INDEX.md or an
agent's memory file is changed on disk (a write in flight). After a refusal HEAD must not have
moved and the person retries every 0.1 s, up to 10 times, as a person would; a checkout still
refused then is reported. At the end: ``git fsck`` and ``git status``. Timings depend on the
machine's load, which is printed.

``--stash``: the stash/pop phase. The daemon runs (1 s quiet period, as in bench/chaos.py) and
before each checkout the person edits a file of their own, ``git stash``es it and pops it
0.05-0.5 s later, as bench/chaos.py does: a stash taken while an agent's write is on disk
and not yet committed takes that write's version with it, and once the write has landed, the
older version stands on disk until the daemon puts HEAD's back. The person's retries are then
0.4 s apart (bench/chaos.py's), up to 10, and the most refusals in a row are printed, with the
daemon's put-backs and its waits of over 2 s for the write lock counted from its log
(RELIABILITY.md: "The checkout refused 7 or 8 times in a row").
"""

from __future__ import annotations

import argparse
import json
import os
import random
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
    ap.add_argument("--keep", action="store_true", help="keep the work folder (the vault, the daemon's log)")
    ap.add_argument("--stash", action="store_true",
                    help="the daemon runs, and the person stashes and pops an edit before each checkout")
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
    notes = root / "notes.txt"  # the person's own file, the same on both branches: its edit goes along
    notes.write_text("the person's notes\n")
    git("add", "notes.txt")
    git("commit", "-qm", "the person's notes")
    git("branch", "side")
    daemon = None
    if args.stash:
        with open(work / "daemon.log", "ab") as err:
            daemon = subprocess.Popen([PY, "-m", "vault_mem", "daemon", str(root)], stdout=subprocess.DEVNULL,
                                      stderr=err, env={**env, "VAULT_MEM_QUIET_SECONDS": "1",
                                                       "VAULT_MEM_DEBOUNCE_MS": "50"})
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
    stash = {"stashed": 0, "pop refused": 0, "pop failed": 0}
    in_a_row = 0
    streaks: list[dict] = []
    named: dict[str, int] = {}
    rnd = random.Random(46)
    try:
        for i in range(args.checkouts):
            target = "side" if i % 2 == 0 else home
            if args.stash:
                with notes.open("a") as fh:
                    fh.write(f"line {i}\n")
                if git("stash", "-q").returncode == 0 and git("stash", "list").stdout.strip():
                    stash["stashed"] += 1
                    time.sleep(rnd.uniform(0.05, 0.5))
                    for _ in range(5):
                        pop = git("stash", "pop", "-q")
                        if pop.returncode == 0:
                            break
                        stash["pop refused"] += 1
                        time.sleep(0.4)
                    else:
                        stash["pop failed"] += 1
                        git("stash", "drop", "-q")
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
                refused = 1
                for _ in range(10):
                    for name in re.findall(r"^\t(\S+)$", co.stderr, re.MULTILINE):
                        named[name] = named.get(name, 0) + 1
                    time.sleep(0.4 if args.stash else 0.1)
                    co = git("checkout", "-q", target)
                    if co.returncode == 0:
                        break
                    refused += 1
                    if refused == 5:  # a long streak: what holds the file, for the report
                        streaks.append(_what_holds(root, co.stderr))
                else:
                    broken.append(f"checkout {target} refused 11 times: {co.stderr.strip()[:200]}")
                in_a_row = max(in_a_row, refused)
            time.sleep(0.2)
    finally:
        stop.set()
        (work / "stop").write_text("")
        for t in agents:
            t.join()
        if daemon is not None:
            daemon.terminate()
            daemon.wait(60)
    if git("symbolic-ref", "--short", "HEAD").stdout.strip() != home:
        git("checkout", "-q", home)
    fsck_ok, status = git("fsck", "--no-progress").returncode == 0, git("status", "--porcelain").stdout.splitlines()
    extra = {}
    if args.stash:
        log = (work / "daemon.log").read_text(errors="replace")
        extra = {"stash/pop": stash,
                 "put back by the daemon": {"older version": log.count("held an older version"),
                                            "a failed write's bytes": log.count("reported as not written")},
                 # the daemon's catching up held up by a writer (RELIABILITY.md: a write waiting
                 # for the person's git commands held the whole lock, and the put-back with it)
                 "daemon waited over 2 s for the write lock": log.count("waiting for the vault's write lock"),
                 "daemon log: tracebacks": log.count("Traceback")}
    if args.keep:
        extra["kept"] = str(work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"checkouts (first tries)": kinds, "most refusals in a row": in_a_row,
                      "5 refusals in a row: what held the files": streaks,
                      "files named by the refusals": dict(sorted(named.items(), key=lambda kv: -kv[1])[:8]),
                      **extra, "agent writes": writes, "refused 11 times or HEAD moved": broken,
                      "git fsck ok": fsck_ok, "git status at the end": status[:5],
                      "load average": [round(x, 1) for x in os.getloadavg()]}, indent=1))
    for kind, text in examples.items():
        if kind != "went through":
            print(f"{kind}: {text}")
    return 1 if broken else 0


def _what_holds(root: Path, stderr: str) -> dict:
    """At the fifth refusal in a row: the files named, how each differs from HEAD (an older
    version in history, or bytes no commit has), the write lock's holder and the journal."""
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True).stdout.strip()
    out: dict = {"write.lock": (root / ".vault-mem/write.lock").read_text(errors="replace").split("\n")[:3],
                 "journal": (root / ".vault-mem/pending.json").exists()}
    for name in re.findall(r"^\t(\S+)$", stderr, re.MULTILINE):
        blob = git("hash-object", name)
        seen = git("log", "--format=%h", f"--find-object={blob}", "-1", "--all")
        out[name] = ("HEAD's" if blob == git("rev-parse", f"HEAD:{name}") else
                     f"an older version (from {seen})" if seen else "bytes no commit has (a write in flight?)")
    return out


if __name__ == "__main__":
    sys.exit(main())
