"""The secret gate on the blind32 corpus (bench/secrets_corpus_blind32.py) over every way an agent
writes: the Python API (``Vault.remember``), the CLI (``vault-mem remember``, one process per
item), the MCP server's ``remember`` tool driven by the MCP SDK's own stdio client, and
``vault-mem scan`` over the same items written by hand as memory files. Prints, per path, recall
(refused credentials / all credentials) and false refusals (refused look-alikes / all look-alikes),
the items missed or wrongly refused, and the machine's load before and after. Asserts nothing.

    .venv/bin/python bench/bench_secrets_blind32.py [--set blind32|blind32_hard] [--code CHECKOUT]
        [--paths api,cli,mcp,scan]

Each path writes into its own fresh vault under a temporary folder, the embedder off. "Refused"
is a ``SecretError`` (API), exit 1 with ``"kind": "SecretError"`` (CLI ``--json``), an error
result of kind ``SecretError`` (MCP), or a scan hit on the item's file (scan).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PATHS = ("api", "cli", "mcp", "scan")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def _api(root: Path, items: list[dict]) -> dict[str, bool]:
    from vault_mem import Vault
    from vault_mem.errors import SecretError

    out = {}
    v = Vault(root)
    try:
        for it in items:
            try:
                v.remember(it["key"], it["description"], it["body"], type="note")
                out[it["name"]] = False
            except SecretError:
                out[it["name"]] = True
    finally:
        v.close()
    return out


def _cli(root: Path, items: list[dict], env: dict, cwd: str) -> dict[str, bool]:
    out = {}
    for it in items:
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "vault_mem",
                "--vault",
                str(root),
                "--json",
                "remember",
                it["key"],
                "-d",
                it["description"],
                "--type",
                "note",
                "--body",
                "-",
            ],
            input=it["body"].encode(),
            env=env,
            capture_output=True,
            cwd=cwd,
        )
        out[it["name"]] = p.returncode == 1 and '"SecretError"' in p.stdout.decode(errors="replace")
    return out


async def _mcp_async(root: Path, items: list[dict], env: dict, cwd: str) -> dict[str, bool]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vault_mem", "mcp", str(root)], env=env, cwd=cwd
    )
    out = {}
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for it in items:
                res = await session.call_tool(
                    "remember",
                    {"key": it["key"], "description": it["description"], "body": it["body"], "type": "note"},
                )
                text = " ".join(getattr(c, "text", "") for c in res.content)
                out[it["name"]] = (
                    bool(getattr(res, "is_error", None) or getattr(res, "isError", None))
                    and "SecretError" in text
                )
    return out


def _scan(root: Path, items: list[dict], env: dict, cwd: str) -> dict[str, bool]:
    names = {}
    for n, it in enumerate(items):
        rel = f"notes/hand-{n:03d}.md"
        names[rel] = it["name"]
        text = f"---\ndescription: {json.dumps(it['description'], ensure_ascii=False)}\nsource: user\n---\n\n{it['body']}\n"
        (root / rel).write_text(text, encoding="utf-8")
    p = subprocess.run(
        [sys.executable, "-m", "vault_mem", "--vault", str(root), "--json", "scan"],
        env=env,
        capture_output=True,
        cwd=cwd,
    )
    hits = json.loads(p.stdout.decode() or "[]")
    flagged = {names[h["path"]] for h in hits if h.get("path") in names}
    return {it["name"]: it["name"] in flagged for it in items}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, help="checkout whose vault_mem to run (default: this tree)")
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument(
        "--set", default="blind32", help="corpus module bench/secrets_corpus_SET.py (blind32, blind32_hard)"
    )
    ap.add_argument("--verbose", action="store_true", help="list every miss and false refusal per path")
    args = ap.parse_args()
    code = (args.code or HERE.parent).resolve()
    sys.path[:0] = [str(code), str(HERE)]
    corpus = __import__(f"secrets_corpus_{args.set}")

    forms, looks = corpus.FORMS, corpus.LOOK_ALIKES
    items = forms + looks
    secret = {it["name"] for it in forms}
    env = {**os.environ, "PYTHONPATH": str(code), "VAULT_MEM_EMBEDDER": "none"}
    print(f"set: {args.set}, code: {code}\nbefore: {_load()}")
    verdicts: dict[str, dict[str, bool]] = {}
    with tempfile.TemporaryDirectory(prefix="blind32-") as tmp:
        for path in args.paths.split(","):
            root = Path(tmp) / path
            subprocess.run(
                [sys.executable, "-m", "vault_mem", "init", str(root)],
                env=env,
                check=True,
                capture_output=True,
                cwd=tmp,
            )
            t0 = time.perf_counter()
            if path == "api":
                got = _api(root, items)
            elif path == "cli":
                got = _cli(root, items, env, tmp)
            elif path == "mcp":
                got = asyncio.run(_mcp_async(root, items, env, tmp))
            else:
                got = _scan(root, items, env, tmp)
            took = time.perf_counter() - t0
            verdicts[path] = got
            tp = sum(got[n] for n in secret)
            fp = sum(v for n, v in got.items() if n not in secret)
            print(
                f"{path}: recall {tp}/{len(forms)} = {100 * tp / len(forms):.1f}%, "
                f"false refusals {fp}/{len(looks)} ({took:.1f}s)"
            )
            missed = sorted(n for n in secret if not got[n])
            wrong = sorted(n for n, v in got.items() if v and n not in secret)
            if args.verbose or path == args.paths.split(",")[0]:
                print(
                    f"  missed: {', '.join(missed) or '-'}\n  refused look-alikes: {', '.join(wrong) or '-'}"
                )
    names = [it["name"] for it in items]
    differ = [n for n in names if len({verdicts[p][n] for p in verdicts}) > 1]
    print(
        f"items on which the paths differ: {len(differ)}"
        + "".join(f"\n  {n}: {dict((p, verdicts[p][n]) for p in verdicts)}" for n in differ)
    )
    print(f"after: {_load()}")


if __name__ == "__main__":
    main()
