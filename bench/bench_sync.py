"""What one ``vault-mem sync`` costs for what arrives: CPU, wall, git processes and peak RSS.

    python bench/bench_sync.py                               # 0, 1, 1,000 and 19,000 incoming files
    python bench/bench_sync.py --sizes 0,1,1000 --rounds 3
    python bench/bench_sync.py --old /tmp/old                # against another checkout, interleaved
    python bench/bench_sync.py --sizes 1 --local 200         # with 200 local commits to replay
    python bench/bench_sync.py --sizes 100 --kind costly     # a peer's 100 costly frontmatters (dos33); --kind large: 60 KB notes; random: 60 KB of random text
    git archive main | tar -x -C /tmp/old                    # (how to make that checkout)

Per size N, per round, and per checkout in turn (the old one first when ``--old`` is given, so
the machine's load weighs on both alike): a fresh vault (``vault-mem init``) published to a bare
remote, a peer's clone that pushes one commit of N new memory files (``git fast-import``; N = 0:
nothing to take; ``--local K``: and K local commits of one memory each in the vault, which the
sync replays on the peer's and checks again before its push), then ``python -m vault_mem sync`` in the vault, timed as a child process
(``os.wait4``: user + system CPU of it and the git processes it waited for, their peak RSS) with
a ``git`` on PATH that logs each start before it runs the real git: the count is the git
processes vault-mem started (not those git starts for itself). The keyword-only index
(``VAULT_MEM_EMBEDDER=none``): the model's cost is the embedder's, not the sync's. Prints one
line per sync, then the medians, then the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

SHIM = """#!/bin/sh
printf '%s' "$*" | tr '\\n' ' ' >> "{log}"
echo >> "{log}"
exec "{git}" "$@"
"""


def memory(i: int, kind: str = "plain") -> bytes:
    """A peer's memory file: ``plain`` a short note; ``large`` one of ~60 KB of prose; ``costly``
    a frontmatter small in bytes and slow to read (~73 KB: 900 empty lists nested 40 deep, each
    value counted once per level: over the reader's bound, refused by name since dos33); ``random``
    ~60 KB of printable ASCII at random (the review of dos33: ~0.5 s a secret-gate pass)."""
    head = f"---\ndescription: peer note {i}\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n"
    if kind == "costly":
        return (head + "z: [" + ",".join(["[" * 39 + "]" * 39] * 900) + "]\n---\nx\n").encode()
    body = f"The peer's note number {i}: deploys go through the staging host first.\n"
    if kind == "large":
        body *= 60_000 // len(body)
    elif kind == "random":  # printable ASCII at random on one line: the secret gate's costliest text seen
        rng = random.Random(i)
        body = "".join(rng.choice(string.printable[:94] + " ") for _ in range(60_000)) + "\n"
    return (head + "---\n" + body).encode()


def run(cmd: list[str], cwd: Path, env: dict[str, str], input: bytes | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input, capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode()


def peer_commit(peer: Path, n: int, env: dict[str, str], kind: str = "plain") -> None:
    """One commit of ``n`` new memory files on the peer's main, pushed."""
    parts = [b"commit refs/heads/main\ncommitter Peer <peer@example.com> 1767225600 +0000\n"
             b"data 9\npeer bulk\nfrom refs/heads/main^0\n"]
    for i in range(n):
        data = memory(i, kind)
        parts.append(b"M 100644 inline facts/peer-%06d.md\ndata %d\n%s\n" % (i, len(data), data))
    run(["git", "fast-import", "--quiet", "--force"], peer, env, input=b"".join(parts))
    run(["git", "push", "-q", "origin", "main"], peer, env)


def local_commits(vault: Path, k: int, env: dict[str, str]) -> None:
    """``k`` commits on the vault's main, one new memory file each, checked out."""
    parts = []
    for i in range(k):
        data = memory(i).replace(b"peer", b"local")
        # the first on the branch's tip; the rest each on the one before (fast-import's own tip)
        parts.append(b"commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata 6\nlocal\n"
                     b"%sM 100644 inline facts/local-%06d.md\ndata %d\n%s\n"
                     % (1767225600 + i, b"" if i else b"from refs/heads/main^0\n", i, len(data), data))
    run(["git", "fast-import", "--quiet", "--force"], vault, env, input=b"".join(parts))
    run(["git", "reset", "-q", "--hard", "main"], vault, env)


def setup(tmp: Path, code: Path, n: int, env: dict[str, str], local: int = 0, kind: str = "plain") -> Path:
    bare, vault, peer = tmp / "remote.git", tmp / "vault", tmp / "peer"
    run(["git", "init", "-q", "--bare", str(bare)], tmp, env)
    run([sys.executable, "-m", "vault_mem", "init", str(vault)], tmp, {**env, "PYTHONPATH": str(code)})
    run(["git", "remote", "add", "origin", str(bare)], vault, env)
    run(["git", "push", "-q", "-u", "origin", "main"], vault, env)
    run(["git", "clone", "-q", str(bare), str(peer)], tmp, env)
    if n:
        peer_commit(peer, n, env, kind)
    if local:
        local_commits(vault, local, env)
    return vault


def measure(code: Path, n: int, base_env: dict[str, str], real_git: str, local: int = 0,
            kind: str = "plain") -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as t:
        tmp = Path(t)
        env = {**base_env, "HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp / "xdg")}
        (tmp / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Bench\n"
                                        "\temail = bench@example.com\n")
        vault = setup(tmp, code, n, env, local, kind)
        shim, log = tmp / "shim", tmp / "git.log"
        shim.mkdir()
        (shim / "git").write_text(SHIM.format(log=log, git=real_git))
        (shim / "git").chmod(0o755)
        sync_env = {**env, "PYTHONPATH": str(code), "PATH": f"{shim}:{env['PATH']}"}
        out_path, err_path = tmp / "out", tmp / "err"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "vault_mem", "sync", "--vault", str(vault)],
                                    cwd=vault, env=sync_env, stdout=out, stderr=err)
            # reaped here, not by Popen: wait4 gives its own rusage (with the git it waited for)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        said = out_path.read_text()
        if proc.returncode != 0 or (n and "received 1 commit" not in said):
            raise SystemExit(f"sync failed: {said} {err_path.read_text()}")
        starts = log.read_text().splitlines() if log.exists() else []
        if os.environ.get("BENCH_SYNC_SHOW_GIT"):
            print("\n".join(f"    git {line}" for line in starts))
        return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "git": len(starts),
                "rss_mb": usage.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="0,1,1000,19000", help="incoming files per sync, comma-separated")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--local", type=int, default=0, help="local commits (one memory each) the sync replays")
    ap.add_argument("--kind", choices=("plain", "large", "costly", "random"), default="plain",
                    help="the peer's memories: short notes, ~60 KB of prose, or a costly frontmatter (dos33)")
    ap.add_argument("--old", type=Path, help="another checkout (e.g. `git archive main`) to run alternately")
    args = ap.parse_args()
    real_git = shutil.which("git")
    if real_git is None:
        raise SystemExit("git is not on PATH")
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    for key in ("VAULT_MEM_VAULT", "VAULT_MEM_PERSONAL", "VAULT_MEM_AGENT", "PYTHONPATH"):
        env.pop(key, None)
    codes = ([("old", args.old.resolve())] if args.old else []) + [("new", HERE)]
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    print(f"{'code':<5} {'files':>6} {'cpu s':>7} {'wall s':>7} {'git':>4} {'rss MB':>7}")
    for n in (int(s) for s in args.sizes.split(",")):
        for _ in range(args.rounds):
            for label, code in codes:
                r = measure(code, n, env, real_git, args.local, args.kind)
                results.setdefault((label, n), []).append(r)
                print(f"{label:<5} {n:>6} {r['cpu']:>7.2f} {r['wall']:>7.2f} {r['git']:>4} {r['rss_mb']:>7.0f}",
                      flush=True)
    print("medians:")
    for (label, n), rs in results.items():
        med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
        print(f"{label:<5} {n:>6} {med['cpu']:>7.2f} {med['wall']:>7.2f} {med['git']:>4.0f} {med['rss_mb']:>7.0f}")
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
