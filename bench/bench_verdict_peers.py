"""The verdict figures of ``bench_verdict.py`` in a vault some of whose memories a peer wrote
(an author not approved here), as the person asks for them.

    python bench/bench_verdict_peers.py bench/data/devvault.json --cache /tmp/me/embed.sqlite
    python bench/bench_verdict_peers.py FILE --mode own --mode half-peer --mode all-peer --mode two-peers

Each file's memories are split between the person (imported in one commit through
``Vault.import_memories``: the agent's, made here) and peers (the rest written as files and
committed by plain git without hooks under another author: not made here, as a pull brings
them):

- ``own``: every memory the person's (the same-run baseline);
- ``half-peer``: every other memory a peer's (not approved); ``half-alone``: the person's half
  alone (no peer: what ``half-peer``'s ``own`` figures are to equal);
- ``all-peer``: every memory a peer's (a clone of a team's vault the person has not written to);
- ``approved``: every memory a peer's, that author approved here (``trust --author``);
- ``two-peers``: a third each: the person's, an approved peer's, another peer's not approved;
  ``third-alone``: its first two thirds alone (what ``two-peers``' ``own`` figures are to equal).

Per mode: ``asked``, every question through ``Vault.recall`` (k=10; a recall on request: the
peers' hits shown, marked); ``own``, the questions whose relevant memories are all trusted
here, through ``recall(trusted_only=True)`` (what the prompt hook asks), and the floor's
source and base. Figures as ``bench_verdict.figures``: hook coverage, strong precision, near
misses given a strong hit, denied. One vault per group (LoCoMo: per conversation).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_verdict import figures, group_vaults, grouped  # bench/ is on sys.path when run as a script
from embed_cache import CachedEmbedder

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.ops import eval as evalmod
from vault_mem.store import trust
from vault_mem.vault.core import Vault

PEER = ("Mallory", "mallory@peer.invalid")
OTHER = ("Bob", "bob@other.invalid")
MODES = ("own", "half-peer", "half-alone", "all-peer", "approved", "two-peers", "third-alone")


def split(mems: list, mode: str) -> tuple[list, list, list]:
    """(the person's, the approved peer's, the peer's not approved)."""
    if mode == "own":
        return mems, [], []
    if mode == "half-peer":
        return mems[0::2], [], mems[1::2]
    if mode == "half-alone":
        return mems[0::2], [], []
    if mode == "third-alone":
        return mems[0::3], mems[1::3], []
    if mode == "all-peer":
        return [], [], mems
    if mode == "approved":
        return [], mems, []
    return mems[0::3], mems[1::3], mems[2::3]


def peer_commit(root: Path, vault: Vault, mems: list, kmap: dict, who: tuple[str, str]) -> None:
    """``mems`` written as files and committed by plain git as ``who`` (no hooks: not made here)."""
    for m in mems:
        mem = evalmod._to_memory(m, kmap[m["key"]])
        path = root / mem.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(vault.ws.policy.file_bytes(mem))
    env = {**os.environ, "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1],
           "GIT_COMMITTER_NAME": who[0], "GIT_COMMITTER_EMAIL": who[1]}
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True, capture_output=True)
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "a peer's notes"],
                   cwd=root, env=env, check=True, capture_output=True)


def measure(path: Path, embedder, mode: str) -> dict:
    data = evalmod.load_benchmark(path)
    mems, qs = grouped(data)
    asked, own, floors = [], [], set()

    def fill(vault, root: Path, memories: list, kmap: dict) -> None:
        mine, approved, peers = split(memories, mode)
        if mine:
            vault.import_memories([evalmod._to_memory(m, kmap[m["key"]]) for m in mine], message="bench: import")
        for who, part in ((PEER, approved), (OTHER, peers)):
            if part:
                peer_commit(root, vault, part, kmap, who)
        if approved:
            trust.approve_authors(root, [PEER[1]])

    for group, vault, back in group_vaults(mems, qs, embedder, "vault-mem-verdict-peers-", fill):
        mine, approved, _ = split(mems[group], mode)
        trusted_keys = {m["key"] for m in mine + approved}
        for q in qs[group]:
            rel = {str(k) for k in q.get("relevant", [])}
            asked.append(row(vault.recall(q["q"], k=10), rel, back))
            if rel <= trusted_keys:
                res = vault.recall(q["q"], k=10, trusted_only=True)
                own.append(row(res, rel, back))
                floors.add((res.floor or {}).get("source"))
    return {"file": path.name, "mode": mode, "asked": figures(asked), "own": figures(own),
            "floor": sorted(f for f in floors if f)}


def row(res, rel: set[str], back: dict) -> dict:
    """One question's row as ``bench_verdict.figures`` reads it."""
    keys = [back.get(h.key, h.key) for h in res.hits]
    strong3 = [back.get(h.key, h.key) for h in res.hits[:3] if h.match == "strong"]
    return {"answerable": bool(rel), "denied": res.verdict == "none", "denied_top_right": False,
            "covered": any(k in rel for k in strong3), "strong3": len(strong3),
            "strong3_rel": sum(k in rel for k in strong3),
            "r5": len(rel & set(keys[:5])) / len(rel) if rel else 0.0, "strong_any": bool(strong3),
            "keyword_only": res.keyword_only, "lost": None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--mode", action="append", choices=MODES, help="repeatable; default: every mode")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--cache", type=Path, help="SQLite file caching vectors across runs (outside the repo)")
    args = ap.parse_args()
    embedder = get_embedder(EmbedderConfig(provider=args.embedder))
    if args.cache:
        embedder = CachedEmbedder(embedder, args.cache)
    load = os.getloadavg()[0]
    for path in args.files:
        for mode in args.mode or MODES:
            t0 = time.perf_counter()
            out = measure(path, embedder, mode)
            out["seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps(out), flush=True)
    print(json.dumps({"load": [round(load, 1), round(os.getloadavg()[0], 1)]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
