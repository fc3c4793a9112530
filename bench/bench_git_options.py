"""What git's own settings do to one ``remember``: copies of one vault, each with a setting, written
in turn in one process (so the machine's load weighs on all alike).

    python bench/bench_git_options.py --size 10000 --writes 12
    python bench/bench_git_options.py --vault /tmp/v10k --options default,core.splitIndex=true

Per option, a ``git clone`` of a vault of ``--size`` realistic memories (``bench/corpus.py``;
or of ``--vault``), packed, indexed, with the option set in its ``.git/config`` and git's index
rewritten under it (``git update-index --really-refresh`` and a ``git status`` that may write the
index); then ``--writes`` rounds, each one ``Vault.remember`` of a new key per copy, in a warm
process (one untimed write first). Prints per option the p50/p95 of the whole write and the p50 of
its two git parts, timed by wrappers around the real functions: ``git status`` of the memory
files (:func:`vault_mem.vault.steps.changed_memory_paths`) and the commit
(``GitRepo.commit_paths``: objects, the prepared copy of git's index, the ref); then the load
average. ``default`` is the vault as ``vault-mem init`` leaves it. ``--kept``: each vault is kept
current by its own watcher, as the MCP server keeps it (no ``git status`` per write), so what is
left of a write's git cost is the commit and git's index. Also prints each write's CPU time (this
thread's plus the git processes it waited for), which a loaded machine inflates less than wall
time. Asserts nothing.

    python bench/bench_git_options.py --vault /tmp/v100k --kept --options default,core.splitIndex=true
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import PartTimer, git, load_line, packed_vault, pct  # noqa: E402

from vault_mem import Vault  # noqa: E402
from vault_mem.daemon.keeper import Keeper  # noqa: E402
from vault_mem.vault import steps  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--vault", type=Path, default=None, help="an indexed vault to copy instead of a new one")
    ap.add_argument("--writes", type=int, default=12)
    ap.add_argument("--kept", action="store_true",
                    help="each vault kept current by its own watcher (as the MCP server)")
    ap.add_argument("--options", default="default,core.untrackedCache=true,feature.manyFiles=true,"
                    "index.version=4,core.splitIndex=true",
                    help="comma-separated: default, or NAME=VALUE set with git config")
    args = ap.parse_args()
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "b@example.com"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "b@example.com")):
        os.environ.setdefault(env, val)
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    options = [o.strip() for o in args.options.split(",") if o.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="bench-git-options-"))
    try:
        src = args.vault
        if src is None:
            src = tmp / "source"
            packed_vault(src, args.size)
        roots = {}
        for i, opt in enumerate(options):
            root = tmp / f"v{i}"
            shutil.copytree(src, root, symlinks=True)
            if opt != "default":
                name, _, value = opt.partition("=")
                git(root, "config", name, value)
            # the copy has new inodes and times: refresh git's index (under the option's format)
            subprocess.run(["git", "update-index", "-q", "--really-refresh"], cwd=root, capture_output=True)
            if opt == "index.version=4":
                git(root, "update-index", "--index-version", "4")
            if opt == "core.splitIndex=true":
                git(root, "update-index", "--split-index")
            git(root, "status", "-uall")
            roots[opt] = root
        print(f"{len(options)} copies of {src}; {load_line()}", flush=True)
        status = PartTimer(steps.changed_memory_paths)
        steps.changed_memory_paths = status  # looked up at call time by finish_write
        vaults = {opt: Vault(root) for opt, root in roots.items()}
        keepers = []
        if args.kept:
            for opt, root in roots.items():
                keeper = Keeper(vaults[opt])  # as the MCP server installs it
                keeper.start_in_background(lambda root=root: Vault(root))
                vaults[opt].kept_current, vaults[opt].kept_exactly = keeper.catch_up, keeper.caught_up_exactly
                vaults[opt].list()  # waits for the keeper's start-up reconcile
                keepers.append(keeper)
        whole = {opt: [] for opt in options}
        cpu = {opt: [] for opt in options}
        parts = {opt: ([], []) for opt in options}
        commits = {}
        try:
            for opt, vault in vaults.items():
                vault.remember(f"warm-{len(commits)}", "A warm-up memory, not timed", "warm up")
                commits[opt] = PartTimer(vault.repo.commit_paths)
                vault.repo.commit_paths = commits[opt]  # type: ignore[method-assign]
            for i in range(args.writes):
                for opt, vault in vaults.items():
                    n_status = len(status.ms)
                    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
                    c, t = time.thread_time(), time.perf_counter()
                    vault.remember(f"opt-{i}", f"Option write {i} of the git settings bench", f"Body {i}.")
                    whole[opt].append((time.perf_counter() - t) * 1000)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[opt].append((time.thread_time() - c + after.ru_utime - kids.ru_utime
                                     + after.ru_stime - kids.ru_stime) * 1000)
                    parts[opt][0].append(sum(status.ms[n_status:]))
                    parts[opt][1].append(commits[opt].ms[-1])
        finally:
            steps.changed_memory_paths = status.fn
            for keeper in keepers:
                keeper.close()
            for vault in vaults.values():
                vault.close()
        print(f"{'option':>24} {'remember p50/p95':>17} {'status p50':>11} {'commit p50':>11} {'cpu p50':>8}"
              + ("   (kept: no git status)" if args.kept else ""))
        for opt in options:
            w = pct(whole[opt])
            status_p50 = pct(parts[opt][0])["p50"] if parts[opt][0] else 0.0
            print(f"{opt:>24} {w['p50']:>8.0f}/{w['p95']:<8.0f} {status_p50:>11.1f} "
                  f"{pct(parts[opt][1])['p50']:>11.1f} {pct(cpu[opt])['p50']:>8.0f}")
        print(load_line())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
