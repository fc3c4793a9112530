"""What recording every counted line's first giver costs the origins scan (first23,
``vault/authors.Origins._record_lines``): CPU and the most memory Python holds of one scan of a
vault's whole history, as its first read after the sidecar is made (or rebuilt) pays it, and,
for this code, of the one-time refill of a sidecar the earlier rule filled. Since first23 the
scan reads the texts of the commits made here too, not only the peers'.

    git archive main | tar -x -C /tmp/old                        # the baseline checkout
    python bench/bench_line_scan.py --old /tmp/old --mine 2000 --peers 2000 --calls 5

One vault (``--mine`` memories committed here, ``--peers`` a peer's, synced in, each of 12
counted lines), made once with raw git and the CLI; per call a fresh process per checkout (the
old one first, alternating), which forgets the scan's rows and runs it. CPU is the child's user
+ system time and the git it waited for (``os.wait4``); memory, ``tracemalloc``'s peak. Prints
the medians and the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PEER = {"GIT_AUTHOR_NAME": "Peer", "GIT_AUTHOR_EMAIL": "peer@example.com",
        "GIT_COMMITTER_NAME": "Peer", "GIT_COMMITTER_EMAIL": "peer@example.com"}

#: run in the child: forget the scan's rows (``refill``: only that the lines were filled), then
#: one scan; prints the peak MB Python held
_SCAN = """
import sys, tracemalloc
from vault_mem import Vault
from vault_mem.vault import authors
vault = Vault(sys.argv[1])
db = vault.sidecar.db
with db.write():
    if sys.argv[2] == "refill":
        db.execute("UPDATE meta SET value = '1' WHERE name = 'peer_lines_filled'")
    else:
        db.execute("DELETE FROM origins")
        db.execute("DELETE FROM meta WHERE name IN ('origins_stamp', 'origins_tips')")
        try:
            db.execute("DELETE FROM peer_lines")
        except Exception:
            pass
tracemalloc.start()
authors.Origins(vault.ws, vault.sidecar, authors.identities(vault.ws))
print(tracemalloc.get_traced_memory()[1] / 2**20)
vault.close()
"""


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def memory(who: str, i: int) -> str:
    body = "".join(f"{who}'s note {i}, line {j}: deploys go through staging first.\n" for j in range(12))
    return f"---\ndescription: {who} note {i} about the staging deploy\n---\n{body}"


def make(tmp: Path, args, env: dict[str, str]) -> Path:
    bare, vault, peer = tmp / "remote.git", tmp / "vault", tmp / "peer"
    code_env = {**env, "PYTHONPATH": str(HERE)}
    run(["git", "init", "-q", "--bare", str(bare)], tmp, env)
    run([sys.executable, "-m", "vault_mem", "init", str(vault)], tmp, code_env)
    for i in range(args.mine):
        (vault / "facts" / f"mine-{i:05d}.md").write_text(memory("Mine", i))
    run(["git", "add", "-A"], vault, env)
    run(["git", "commit", "-q", "-m", "mine"], vault, env)
    run(["git", "remote", "add", "origin", str(bare)], vault, env)
    run(["git", "push", "-q", "-u", "origin", "main"], vault, env)
    run(["git", "clone", "-q", "-b", "main", str(bare), str(peer)], tmp, env)
    peer_env = {**env, **PEER}
    (peer / "facts").mkdir(exist_ok=True)
    for i in range(args.peers):
        (peer / "facts" / f"peer-{i:05d}.md").write_text(memory("Peer", i))
    run(["git", "add", "-A"], peer, peer_env)
    run(["git", "commit", "-q", "--no-verify", "-m", "peer notes"], peer, peer_env)
    run(["git", "push", "-q", "origin", "main"], peer, peer_env)
    run([sys.executable, "-m", "vault_mem", "sync", "--vault", str(vault)], vault, code_env)
    run([sys.executable, "-m", "vault_mem", "list", "--vault", str(vault)], vault, code_env)
    return vault


def timed(code: Path, vault: Path, what: str, env: dict[str, str]) -> tuple[float, float]:
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-c", _SCAN, str(vault), what], cwd=vault,
                                env={**env, "PYTHONPATH": str(code)}, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the scan failed in {code}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, float(out.read().split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", type=Path, help="another checkout (e.g. `git archive main`) to run alternately")
    ap.add_argument("--mine", type=int, default=2000)
    ap.add_argument("--peers", type=int, default=2000)
    ap.add_argument("--calls", type=int, default=5)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VAULT_MEM")}
    tmp = Path(tempfile.mkdtemp(prefix="bench-line-scan-"))
    try:
        env.update({"HOME": str(tmp / "home"), "GIT_CONFIG_NOSYSTEM": "1",
                    "GIT_AUTHOR_NAME": "Person", "GIT_AUTHOR_EMAIL": "person@example.com",
                    "GIT_COMMITTER_NAME": "Person", "GIT_COMMITTER_EMAIL": "person@example.com"})
        (tmp / "home").mkdir()
        vault = make(tmp, args, env)
        runs = [("old", args.old, "scan")] if args.old else []
        runs += [("this", HERE, "scan"), ("this", HERE, "refill")]
        found: dict[tuple[str, str], list[tuple[float, float]]] = {(n, w): [] for n, _c, w in runs}
        for _ in range(args.calls):
            for name, code, what in runs:
                found[(name, what)].append(timed(code, vault, what, env))
        print(f"vault: {args.mine} memories made here, {args.peers} a peer's, 12 counted lines each; "
              f"{args.calls} calls, medians")
        for (name, what), got in found.items():
            print(f"  {name:5s} {what:7s} CPU {statistics.median(c for c, _m in got):6.2f} s   "
                  f"peak {statistics.median(m for _c, m in got):6.1f} MB")
        print("load average:", " ".join(f"{x:.1f}" for x in os.getloadavg()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
