"""The outgoing check (sync/remote.check_outgoing) on a local commit of many files holding a
credential, at a long history: files the remote's tip holds (a peer's, rebased), and files no
remote commit holds (the refusal: one history walk for all of them); a same-run baseline of the
same commit with clean files. ``--old OLD``: the same in a checkout OLD (``git archive``),
alternating.

    python bench/bench_outgoing_flagged.py --files 300 --commits 10000 [--old OLD]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def build(base: Path, files: int, commits: int, tokens: bool) -> tuple[Path, str, str, str]:
    from vault_mem import Vault

    root = base / ("tok" if tokens else "clean")
    Vault.init(root).close()
    git(root, "config", "user.name", "P")
    git(root, "config", "user.email", "p@example.com")
    head = git(root, "rev-parse", "HEAD").strip()
    lines = []
    for i in range(commits):
        body = f"---\ndescription: filler\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\nn {i}\n".encode()
        lines.append(b"commit refs/heads/main\ncommitter P <p@x> 1700000000 +0000\ndata 1\nx\n"
                     + (f"from {head}\n".encode() if i == 0 else b"")
                     + f"M 100644 inline facts/filler.md\ndata {len(body)}\n".encode() + body + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(lines), check=True)
    git(root, "reset", "-q", "--hard", "main")
    r = random.Random(1)
    for i in range(files):
        value = "ghp_" + "".join(r.choice(string.ascii_letters + string.digits) for _ in range(36)) if tokens else f"note {i}"
        (root / "facts" / f"t{i}.md").write_text(
            f"---\ndescription: ci token {i}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{value}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "files")
    local = git(root, "rev-parse", "HEAD").strip()
    parent = git(root, "rev-parse", "HEAD~1").strip()
    rewritten = git(root, "commit-tree", git(root, "rev-parse", "HEAD^{tree}").strip(), "-p", parent,
                    "-m", "files (rebased)").strip()
    return root, local, parent, rewritten


def measure(files: int, commits: int) -> dict[str, float]:
    import vault_mem.sync.remote as remote
    from vault_mem import Vault
    from vault_mem.errors import SyncError

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tokens in (False, True):
            root, local, parent, rewritten = build(Path(tmp), files, commits, tokens)
            v = Vault(root, embedder=None)
            try:
                cases = [("clean files, none on the remote (baseline)", parent)] if not tokens else [
                    ("flagged files, all at the remote's tip", rewritten),
                    ("flagged files, none on the remote (refused)", parent)]
                for name, tip in cases:
                    t = time.monotonic()
                    try:
                        remote.check_outgoing(v, tip, local)
                    except SyncError:
                        pass
                    out[name] = round(time.monotonic() - t, 2)
            finally:
                v.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--commits", type=int, default=10000)
    ap.add_argument("--old", help="a checkout of the old code (git archive), run alternating")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.json:
        print(json.dumps(measure(a.files, a.commits)))
        return
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for label, path in [("new", None), *([("old", a.old)] if a.old else [])]:
        env = {**os.environ, **({"PYTHONPATH": path} if path else {})}
        proc = subprocess.run([sys.executable, __file__, "--json", "--files", str(a.files), "--commits", str(a.commits)],
                              env=env, capture_output=True, text=True, check=True, cwd=path or None)
        for name, secs in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            print(f"{label}: {a.files} files at {a.commits} commits, {name}: {secs} s")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
