"""What a HEAD move costs the check of what HEAD holds unapproved when a peer's commit left many
such files (``store/gitfiles.held_record``, past the 200 its record names).

    python bench/bench_held_move.py --held 20000 --rounds 9

Makes a vault (``Vault.init``), commits N agent command files (``.claude/commands/cNNNNN.md``,
each taking approval) in one commit no one made here (git fast-import), finds them once (the
record kept), then per round moves HEAD by one memory commit (as a pull or a person's commit
does) and times ``held_record``:

- as it is: the paths changed since the recorded HEAD put to the rule (the record's list of all
  held files, ``held-unapproved-all``, read beside it);
- the same-run baseline: the same move with that list taken away, so the record names only its
  first 200 and the check lists HEAD whole (what every move cost before atk33).

Then, with ``--history C``: C more commits (one memory each) and the person's own ``CLAUDE.md``,
and the cost of asking whether a commit not made here gave it those bytes
(``store/history.given_elsewhere``, one ``git log`` of the path over every commit the repository
names), which a file a commit made here left is asked when HEAD's listing puts it to the rule.

Then, with ``--writes W``: W rounds of a vault-mem write (``Vault.remember``, which carries the
record over to its own commit: ``store/gitfiles.carry_held``) followed by the read every next
command makes (``held_record``), as it is (the carried record says the write's own commit is
recorded: nothing asked) and the same-run baseline with that step taken away (before mendatk33:
the record's stamp of the commits made here was stale after each write, so the read put every
held file to the rule again, one ``git log`` of all N paths).

Prints CPU p50 (this process and its git processes) and wall p50 of each, then the load average.
Asserts only that both find the N files.
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
from vault_mem.store import gitfiles, history  # noqa: E402
from vault_mem.store.template import template_blobs  # noqa: E402
from vault_mem.store.workspace import Workspace  # noqa: E402


def _cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _commit(root: Path, files: dict[str, bytes], when: int) -> None:
    parent = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    out = [
        f"commit refs/heads/main\ncommitter Peer <peer@example.com> {when} +0000\ndata 4\npeer\nfrom {parent}\n".encode()
    ]
    for path, body in files.items():
        out.append(f"M 100644 inline {path}\ndata {len(body)}\n".encode() + body + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)


def _commits(root: Path, n: int) -> None:
    """``n`` commits on main, one memory each (git fast-import)."""
    out = []
    for i in range(n):
        body = f"---\ndescription: History {i}\n---\n".encode()
        head = "from refs/heads/main^0\n" if i == 0 else ""
        out.append(
            f"commit refs/heads/main\ncommitter Peer <peer@example.com> {1764990000 + i} +0000\ndata 1\nh\n{head}"
            f"M 100644 inline notes/history-{i % 500}.md\ndata {len(body)}\n".encode()
            + body
            + b"\n"
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)


def _write_then_read(root: Path, ws: Workspace, template: dict, args, got: dict) -> None:
    """``--writes``: a write, then the read the next command makes, as it is and the baseline."""
    names = ["write then read, as it is", "write then read, baseline: stamp kept"]
    for name in names:
        got[name] = []
    as_it_is = gitfiles._only_this_commit_since
    v = Vault(root, embedder=None)
    try:
        for i in range(2 * args.writes):
            name = names[i % 2]
            gitfiles._only_this_commit_since = as_it_is if i % 2 == 0 else (lambda *a: False)
            v.remember(f"tea-{i}", f"Tea note {i}")
            c, t = _cpu(), time.perf_counter()
            held = gitfiles.held_record(ws.root, ws.repo, ws.prefix, ws.state_dir, template)
            got[name].append(((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
            assert held.count == args.held, held.count
    finally:
        gitfiles._only_this_commit_since = as_it_is
        v.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--held", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument(
        "--history", type=int, default=0, help="commits before the given-elsewhere look (0: none)"
    )
    ap.add_argument("--writes", type=int, default=0, help="rounds of a write then a read (0: none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-held-move-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # this run's approvals, not the person's
        root = Path(tmp) / "vault"
        Vault.init(root).close()
        _commit(
            root,
            {f".claude/commands/c{i:05d}.md": f"Run step {i}.\n".encode() for i in range(args.held)},
            1764979200,
        )
        ws, template = Workspace(root), template_blobs()
        assert ws.held().count == args.held
        got: dict[str, list[tuple[float, float]]] = {
            "as it is (paths changed since)": [],
            "baseline: the record's first 200 only": [],
        }
        for i in range(2 * args.rounds):
            name = list(got)[i % 2]
            _commit(
                root, {f"facts/more-{i}.md": f"---\ndescription: More {i}\n---\n".encode()}, 1764979300 + i
            )
            if i % 2:
                (ws.state_dir / gitfiles.HELD_ALL).unlink(missing_ok=True)
            c, t = _cpu(), time.perf_counter()
            held = gitfiles.held_record(ws.root, ws.repo, ws.prefix, ws.state_dir, template)
            got[name].append(((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
            assert held.count == args.held, held.count
        if args.writes:
            _write_then_read(root, ws, template, args, got)
        if args.history:
            _commits(root, args.history)
            (root / "CLAUDE.md").write_text("Use the vault for project notes.\n")
            subprocess.run(["git", "add", "CLAUDE.md"], cwd=root, check=True)
            subprocess.run(["git", "commit", "-q", "-m", "mine"], cwd=root, check=True)
            blob = ws.repo.blob_at("HEAD", "CLAUDE.md")
            name = f"given_elsewhere, {args.history} commits"
            got[name] = []
            for _ in range(args.rounds):
                c, t = _cpu(), time.perf_counter()
                assert not history.given_elsewhere(ws.repo, {"CLAUDE.md": blob})
                got[name].append(((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
        ws.repo.close()
    print(f"{args.held} held files, HEAD moved by one memory commit, {args.rounds} rounds each")
    for name, ms in got.items():
        print(
            f"{name:>40}: CPU p50 {statistics.median(c for c, _ in ms):9.1f} ms, "
            f"wall p50 {statistics.median(w for _, w in ms):9.1f} ms"
        )
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()), f"({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
