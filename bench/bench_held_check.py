"""What the check of the agent, editor and git files HEAD holds unapproved costs every command
(``store/gitfiles.held_record``), in a vault of N memories with nothing pending.

    python bench/bench_held_check.py --memories 100000 --rounds 15 [--keep /tmp/v100k] [--old /tmp/main]

Makes a vault (``Vault.init``), commits N memory files over the type folders in one commit (git
fast-import) and checks them out, then measures, alternating in the same run:

- the opening every command makes (``Workspace(root)``) as it is, the record valid: the check is
  HEAD's ref read from git's files, trusted.json's parse and one read of the signed record;
- the same opening with ``held_record`` replaced by a function returning "nothing held": the
  same-run baseline of a command without the check;
- the check alone with its record valid; found again whole (no record, or the approvals
  changed): two ``git diff-tree`` listings that leave the type folders' memory files out, beside
  git's part of atk32's listing of the whole tree (``git ls-tree -r``); and HEAD moved by one
  memory commit (a pull, a person's commit): one ``git diff-tree`` since the recorded HEAD;
- with ``--old CHECKOUT`` (``git archive`` of the merged main), that main's ``held_unapproved``
  (atk32's, asked afresh each time), in a process of its own.

Prints CPU p50 (this process and its git processes) and wall p50 of each, the git processes one
valid-record check starts, then the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("VAULT_MEM_EMBEDDER", "none")

from vault_mem import Vault  # noqa: E402
from vault_mem.config import TYPE_FOLDERS  # noqa: E402
from vault_mem.store import gitfiles, workspace  # noqa: E402
from vault_mem.store.template import template_blobs  # noqa: E402
from vault_mem.store.workspace import Workspace  # noqa: E402


def _cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def make_vault(root: Path, n: int) -> None:
    Vault.init(root).close()
    folders = sorted(TYPE_FOLDERS.values())
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    out = [
        f"commit refs/heads/main\ncommitter Peer <peer@example.com> 1764979200 +0000\ndata 8\nmemories\nfrom {head}"
    ]
    for i in range(n):
        body = f"---\ndescription: Memory number {i} of the bench\n---\nBody of memory {i}.\n".encode()
        out.append(
            f"M 100644 inline {folders[i % len(folders)]}/memory-{i:06d}.md\ndata {len(body)}\n"
            + body.decode()
        )
    stream = ("\n".join(out) + "\n").encode()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=stream, check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--keep", type=Path, help="make the vault here (or reuse the one made there before)")
    ap.add_argument(
        "--old", type=Path, help="a checkout of the merged main (git archive): its held_unapproved timed too"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-held-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # this run's approvals, not the person's
        root = args.keep or Path(tmp) / "vault"
        if args.keep:  # its approvals kept beside it
            os.environ["XDG_CONFIG_HOME"] = str(args.keep.parent / (args.keep.name + "-config"))
        if not (root / "vault.toml").exists():
            t = time.perf_counter()
            make_vault(root, args.memories)
            print(f"vault of {args.memories} memories made in {time.perf_counter() - t:.1f} s")
        Workspace(root).repo.close()  # the first opening finds it and keeps the record
        real = workspace.held_record

        def open_with() -> None:
            Workspace(root).repo.close()

        def open_without() -> None:
            workspace.held_record = lambda *a, **k: gitfiles.Held(0, ())
            try:
                Workspace(root).repo.close()
            finally:
                workspace.held_record = real

        ws = Workspace(root)
        template = template_blobs()

        def check_kept() -> None:
            assert not gitfiles.held_record(ws.root, ws.repo, ws.prefix, ws.state_dir, template)

        def check_found() -> None:
            assert not gitfiles.held_unapproved(ws.root, ws.repo, ws.prefix, template)

        def whole_tree() -> None:
            subprocess.run(
                ["git", "ls-tree", "-r", "-z", "--full-tree", "HEAD"],
                cwd=root,
                capture_output=True,
                check=True,
            )

        ways = {
            "opening, check kept (every command)": open_with,
            "opening, no check (baseline)": open_without,
            "check alone, record valid": check_kept,
            "check alone, found again whole": check_found,
            "atk32's git ls-tree -r of HEAD": whole_tree,
        }
        got: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
        for i in range(args.rounds):  # the order turned every other round: no way always follows another
            for name, way in list(ways.items())[:: 1 if i % 2 else -1]:
                c, t = _cpu(), time.perf_counter()
                way()
                got[name].append(((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
        trace = Path(tmp) / "trace"
        env = {**os.environ, "GIT_TRACE": str(trace)}
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]);"
                "from vault_mem.store.workspace import Workspace; Workspace(sys.argv[2]).held()",
                str(HERE.parent),
                str(root),
            ],
            env=env,
            check=True,
        )
        started = (
            sum(
                " diff-tree " in ln or " ls-tree " in ln or " log " in ln
                for ln in trace.read_text().splitlines()
            )
            if trace.exists()
            else 0
        )
        # HEAD moved by one memory commit (a pull, a person's commit): the record of its parent
        # brought over by one diff-tree of the paths changed since
        parent = ws.repo.head()
        body = b"---\ndescription: One more memory\n---\nMore.\n"
        stream = (
            (
                f"commit refs/heads/main\ncommitter Peer <peer@example.com> 1764979300 +0000\ndata 4\nmore\n"
                f"from {parent}\nM 100644 inline facts/one-more.md\ndata {len(body)}\n"
            ).encode()
            + body
            + b"\n"
        )
        subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=stream, check=True)
        key = gitfiles._held_key(ws.root, ws.repo, ws.prefix, template)

        def check_moved() -> None:
            old = gitfiles.seal(
                ws.root, gitfiles.HELD_RECORD, {"key": [parent, *key[1:]], "count": 0, "files": []}
            )
            (ws.state_dir / gitfiles.HELD_RECORD).write_bytes(old)
            c, t = _cpu(), time.perf_counter()
            assert not gitfiles.held_record(ws.root, ws.repo, ws.prefix, ws.state_dir, template)
            got.setdefault("check alone, HEAD moved by one memory", []).append(
                ((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000)
            )

        for _ in range(args.rounds):
            check_moved()
        if (
            args.old
        ):  # the merged main's atk32 check (ls-tree -r of HEAD, each name to the rule) in its own process
            code = (
                "import os, resource, statistics, sys, time; sys.path.insert(0, sys.argv[1])\n"
                "from vault_mem.store.git import GitRepo\nfrom vault_mem.store.gitfiles import held_unapproved\n"
                "from vault_mem.vault.create import template_blobs\nrepo, tb, ms = GitRepo(sys.argv[2]), template_blobs(), []\n"
                "def cpu():\n a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                " return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime\n"
                "for _ in range(int(sys.argv[3])):\n c, t = cpu(), time.perf_counter()\n"
                " held_unapproved(repo.toplevel, repo, '', tb)\n ms.append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000))\n"
                "print(statistics.median(c for c, _ in ms), statistics.median(w for _, w in ms))\n"
            )
            out = subprocess.run(
                [sys.executable, "-c", code, str(args.old), str(root), str(args.rounds)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            got["main's (atk32) held_unapproved, every time"] = [(float(out[0]), float(out[1]))]
        ws.repo.close()
    for name, ms in got.items():
        print(
            f"{name:>40}: CPU p50 {statistics.median(c for c, _ in ms):8.2f} ms, "
            f"wall p50 {statistics.median(w for _, w in ms):8.2f} ms"
        )
    print(f"git tree listings or logs started by an opening with the record valid: {started}")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()), f"({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
