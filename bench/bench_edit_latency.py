"""Hand edit -> searchable: how long after a person saves a memory file does full recall find it,
with the daemon running (``vault-mem daemon`` as a subprocess, the real bundled model).

    python bench/bench_edit_latency.py                         # 10k memories, 30 edits per way
    python bench/bench_edit_latency.py --n 10000 --edits 40 --dir /tmp/vm-bench-10000
    python bench/bench_edit_latency.py --way socket            # only through the daemon's socket

The vault: ``--n`` realistic memories (``bench/corpus.py``), committed, indexed, every vector made
with the real bundled model (the first run builds it, 8 minutes at 10k on a loaded 2-core box; later runs reuse
``--dir``). The daemon is the real command, ``python -m vault_mem daemon DIR``, with its defaults
(debounce, commit of external edits after the quiet period), its log in ``DIR/.vault-mem``.

One edit: a memory file (a different one each time) gets a new sentence with a word of its own
(``zqx...``), saved like an editor does (the new text to a temp file beside it, then renamed over
it). The clock starts just before the rename. Then full recall of that word (vectors on; the query
is embedded by the model, the edited memory re-embedded on the way) is polled until the edited
memory is a hit, one way per run of edits:
- ``socket``: the recall a one-shot ``vault-mem recall`` or hook sends to the daemon
  (:func:`vault_mem.store.daemon_socket.ask`), answered by the daemon's warm process;
- ``api``: ``Vault.recall`` in this process (a warm agent process of its own, its model loaded):
  it reads the sidecar the daemon keeps, so it sees the edit once the daemon has indexed it.
Polls follow each other back to back (a recall takes tens of ms, so that is the resolution).
Between edits the file is put back the same way and the bench waits ``--gap`` s.
Prints p50/p95/max per way, polls per edit, how long the poll that found the edit took (the
recall itself), and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import indexed_vault, load_line, pct, start_daemon

from vault_mem.config import TYPE_FOLDERS


def save_like_an_editor(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, then rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.bench.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def edits(root: Path, items: list[dict], way: str, count: int, gap: float, offset: int) -> dict:
    from vault_mem.store import daemon_socket as protocol
    from vault_mem.vault.core import Vault

    vault = Vault(root) if way == "api" else None
    try:
        if vault is not None:
            vault.recall("warm up the model")

        def found(word: str, key: str) -> bool:
            if vault is not None:
                return any(h.key == key for h in vault.recall(word).hits)
            answer = protocol.ask(root, "recall", {"query": word})
            if answer is None:
                raise SystemExit("the daemon did not answer a recall")
            return any(h["key"] == key for h in answer[0]["hits"])

        lat, last, polls, keyword_only = [], [], [], 0
        for i in range(count):
            item = items[(offset + i * 97) % len(items)]
            path = root / TYPE_FOLDERS[item["type"]] / f"{item['key']}.md"
            original = path.read_bytes()
            word = f"zqx{way}{os.getpid()}n{i}"
            edited = original.rstrip(b"\n") + f"\n\nAlso noted later: the {word} label.\n".encode()
            t0 = time.perf_counter()
            save_like_an_editor(path, edited)
            n = 0
            while True:
                n += 1
                t_poll = time.perf_counter()
                if found(word, item["key"]):
                    break
                if time.perf_counter() - t0 > 30:
                    raise SystemExit(f"{way}: the edit of {path.name} was not found after 30 s")
            lat.append((time.perf_counter() - t0) * 1000)
            last.append((time.perf_counter() - t_poll) * 1000)
            polls.append(n)
            save_like_an_editor(path, original)
            time.sleep(gap)
        if vault is not None:
            keyword_only = int(vault.recall(word).keyword_only)
        else:
            keyword_only = int(bool(protocol.ask(root, "recall", {"query": word})[0].get("keyword_only")))
        return {"edit_to_found_ms": pct(lat), "polls": pct(polls), "finding_poll_ms": pct(last), "last_recall_keyword_only": keyword_only,
                "all_ms": [round(x) for x in lat]}
    finally:
        if vault is not None:
            vault.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--dir", type=Path, default=None, help="vault to build or reuse (default /tmp/vm-bench-N)")
    ap.add_argument("--edits", type=int, default=30, help="edits per way")
    ap.add_argument("--way", choices=["both", "socket", "api"], default="both")
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between edits")
    args = ap.parse_args()
    root = args.dir or Path(f"/tmp/vm-bench-{args.n}")
    t0 = time.perf_counter()
    items = indexed_vault(root, args.n)
    print(f"vault {root}: {args.n} memories ready in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    out: dict = {"n": args.n, "vault": str(root), "load_before": load_line()}
    proc = start_daemon(root, root / ".vault-mem" / "bench-daemon.stderr")
    try:
        ways = ["socket", "api"] if args.way == "both" else [args.way]
        for k, way in enumerate(ways):
            out[way] = edits(root, items, way, args.edits, args.gap, offset=k * 31)
            out[way]["load"] = load_line()
            print(f"{way}: {out[way]['edit_to_found_ms']}  {load_line()}", file=sys.stderr)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    out["load_after"] = load_line()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
