"""What a write's ``git update-index`` costs as git's index grows, by how it is given to git and
in which format: interleaved, on one vault, nothing of it changed.

    python bench/bench_index_update.py --vault /tmp/growth/vm-growth-100000 --rounds 9

Per round, in turn: the index copied to a new name (what a write did before perf40), the index
given a second name (a hard link: what a write does now, :mod:`vault_mem.store.gitindex`), and
the same for a version 4 index and a split index (``git update-index --split-index``; the
shared part is written once, beside the index, and only read per write); each time ``git
update-index --add`` of INDEX.md's committed blob and one memory file, as a write stages them,
with ``GIT_INDEX_FILE`` set to the new name, which is then removed. Then the same change made in
process (:mod:`vault_mem.store.gitindexfile`, a warm process's later writes): from the index
parsed once (that parse's CPU is printed), and from an index another writer changed (parsed
again from the first, its unchanged blocks taken over). The v4 and split indexes
are made from the vault's own, under other names in its git folder, and removed at the end
(with the shared part). Prints per way the CPU p50 (this process + git) and the wall p50 in ms,
the size of the file git wrote, then the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from vault_mem.store.gitindexfile import IndexFile  # noqa: E402


def cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True, help="a vault with memories in facts/ (bench_growth.py --keep)")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    root = args.vault.resolve()
    gd = root / ".git"
    memory = "facts/" + sorted(os.listdir(root / "facts"))[0]
    blob = subprocess.run(["git", "rev-parse", "HEAD:INDEX.md"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()
    sources = {"v2": gd / "index", "v4": gd / "bench-index-v4", "split": gd / "bench-index-split"}
    shared_before = {n for n in os.listdir(gd) if n.startswith("sharedindex.")}
    for name, made_by in (("v4", ["--index-version", "4"]), ("split", ["--split-index"])):
        shutil.copyfile(sources["v2"], sources[name])
        subprocess.run(["git", "update-index", *made_by], cwd=root, check=True,
                       env={**os.environ, "GIT_INDEX_FILE": str(sources[name])})
    tmp = gd / "bench-index-tmp"
    ways = [("v2, copied", "v2", shutil.copyfile), ("v2, linked", "v2", os.link),
            ("v4, linked", "v4", os.link), ("split, linked", "split", os.link)]
    got: dict[str, list[tuple[float, float, int]]] = {w[0]: [] for w in ways}
    # in process (vault_mem.store.gitindexfile), as a warm process's later writes make it: from
    # the index it parsed (the parse timed once), and after another writer's index (git's own
    # update-index of the same change: parsed again, taking over the unchanged blocks)
    mtime = int(sources["v2"].stat().st_mtime)
    c, t = cpu(), time.perf_counter()
    kept = IndexFile.parse(sources["v2"].read_bytes(), mtime)
    parse_ms = ((cpu() - c) * 1000, (time.perf_counter() - t) * 1000)
    assert kept is not None, "an index this writer leaves to git"
    oid = subprocess.run(["git", "hash-object", memory], cwd=root, capture_output=True, text=True,
                         check=True).stdout.strip()
    other = gd / "bench-index-other"
    shutil.copyfile(sources["v2"], other)
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},INDEX.md", "--", memory],
                   cwd=root, env={**os.environ, "GIT_INDEX_FILE": str(other)}, capture_output=True, check=True)
    got["v2, in process"], got["v2, in process, after another writer"] = [], []
    try:
        for _ in range(args.rounds):
            for label in ("v2, in process", "v2, in process, after another writer"):
                c, t = cpu(), time.perf_counter()
                base = kept if label == "v2, in process" else IndexFile.parse(other.read_bytes(), mtime, like=kept)
                new = base.staged({"INDEX.md": (blob, None), memory: (oid, os.lstat(root / memory))},
                                  os.fsencode(root), mtime)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                try:
                    new.write(fd)
                finally:
                    os.close(fd)
                got[label].append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000, tmp.stat().st_size))
                tmp.unlink()
            for label, source, give in ways:
                c, t = cpu(), time.perf_counter()
                give(sources[source], tmp)
                subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},INDEX.md", "--",
                                memory], cwd=root, env={**os.environ, "GIT_INDEX_FILE": str(tmp)},
                               capture_output=True, check=True)
                got[label].append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000, tmp.stat().st_size))
                tmp.unlink()
    finally:
        tmp.unlink(missing_ok=True)
        other.unlink(missing_ok=True)
        for name in ("v4", "split"):
            sources[name].unlink(missing_ok=True)
        for n in os.listdir(gd):
            if n.startswith("sharedindex.") and n not in shared_before:
                (gd / n).unlink()
    print(f"{root}: index {sources['v2'].stat().st_size} bytes, {args.rounds} rounds; "
          f"in process: the first parse cpu {parse_ms[0]:.1f} ms, wall {parse_ms[1]:.1f} ms")
    for label, runs in got.items():
        cs, ws = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
        print(f"{label:>14}: cpu p50 {cs[len(cs) // 2]:6.1f} ms, wall p50 {ws[len(ws) // 2]:7.1f} ms, "
              f"git wrote {runs[0][2]} bytes")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
