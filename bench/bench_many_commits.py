"""What a peer's push of many small commits costs every clone: the sync, then the next command.

    python bench/bench_many_commits.py                       # 50,000 and 100,000 commits
    python bench/bench_many_commits.py --commits 10000,200000

Per count N: a fresh vault (``vault-mem init``, one memory) published to a bare remote, a peer's
clone that pushes N commits each changing one memory file (``git fast-import``: the same two texts
in turn, so the pack stays small), then in the vault ``vault-mem sync`` and the next command
(``vault-mem list``), each timed as a child process (``os.wait4``: user + system CPU of it and
the git processes it waited for; peak RSS of the largest) and its own peak RSS (``VmHWM``, written
by the process at its exit: git's processes not counted). The next command is where the origins
scan (``vault_mem/vault/authors.Origins``) and the authors' refresh read every new commit
(RELIABILITY.md, Limits on what a peer can make us do). The keyword-only index (``VAULT_MEM_EMBEDDER=none``). Prints one line per step
and the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_sync import run  # bench/ is on sys.path when run as a script


def churn(peer: Path, n: int, env: dict[str, str]) -> None:
    """``n`` commits on the peer's main, each changing ``facts/churn.md``, pushed."""
    parts = [b"reset refs/heads/main\nfrom refs/heads/main^0\n"]
    for i in range(n):
        body = b"---\ndescription: Team churn %d\n---\nx\n" % (i % 2)
        parts.append(b"commit refs/heads/main\nauthor Peer <peer@example.com> 1767225600 +0000\n"
                     b"committer Peer <peer@example.com> 1767225600 +0000\ndata 5\nchurn\n"
                     b"M 100644 inline facts/churn.md\ndata %d\n%s\n" % (len(body), body))
    run(["git", "fast-import", "--quiet", "--force"], peer, env, input=b"".join(parts))
    run(["git", "push", "-q", "origin", "main"], peer, env)


#: ``python -c`` that runs ``vault-mem ARGS`` and, at its exit, writes its own peak RSS (``VmHWM``
#: of /proc/self/status, git's processes not counted) to stderr
_HWM = ("import atexit, sys\n"
        "def _hwm():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM'): sys.stderr.write('\\nVMHWM ' + line.split()[1] + '\\n')\n"
        "atexit.register(_hwm)\n"
        "import runpy\n"
        "sys.argv = ['vault-mem'] + sys.argv[1:]\n"
        "runpy.run_module('vault_mem', run_name='__main__')\n")


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, int]:
    """(CPU seconds with the children it waited for, wall seconds, peak RSS in KB of the largest
    of it and git's processes, its own peak RSS in KB: 0 unknown) of ``cmd``."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()  # before the wait: a full pipe would hold the command
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[-2:])} failed: {err.decode(errors='replace')}")
    own = [int(line.split()[1]) for line in err.decode(errors="replace").splitlines() if line.startswith("VMHWM ")]
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, own[-1] if own else 0


def one(n: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="bench-many-"))
    try:
        env = {**os.environ, "HOME": str(base), "XDG_CONFIG_HOME": str(base / "xdg"), "GIT_CONFIG_NOSYSTEM": "1",
               "VAULT_MEM_EMBEDDER": "none", "GIT_AUTHOR_NAME": "Person", "GIT_AUTHOR_EMAIL": "person@example.com",
               "GIT_COMMITTER_NAME": "Person", "GIT_COMMITTER_EMAIL": "person@example.com"}
        (base / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
        vm = [sys.executable, "-m", "vault_mem"]
        mine, bare, peer = base / "mine", base / "remote.git", base / "peer"
        run([*vm, "init", str(mine)], base, env)
        run([*vm, "--vault", str(mine), "remember", "editor-choice", "-d", "Uses Helix"], base, env)
        run(["git", "init", "-q", "--bare", str(bare)], base, env)
        run(["git", "remote", "add", "origin", str(bare)], mine, env)
        run(["git", "push", "-q", "-u", "origin", "main"], mine, env)
        run(["git", "clone", "-q", str(bare), str(peer)], base, env)
        churn(peer, n, env)
        pack = sum(f.stat().st_size for f in bare.rglob("*") if f.is_file())
        for step, args in (("sync", ["sync"]), ("next command (list)", ["list"])):
            cpu, wall, rss, own = timed([sys.executable, "-c", _HWM, "--vault", str(mine), *args], mine, env)
            print(f"{n:>9,} commits ({pack / 1e6:.0f} MB remote): {step:<20} {cpu:6.2f} s CPU  "
                  f"{wall:6.2f} s wall  peak RSS {rss / 1024:7.1f} MB (vault-mem's own {own / 1024:6.1f} MB)",
                  flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", default="50000,100000", help="comma-separated commit counts")
    args = parser.parse_args()
    for n in (int(x) for x in args.commits.split(",")):
        one(n)
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
