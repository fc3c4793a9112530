"""The secret gate's verdict on a corpus over the three ways in: the Python API (``Vault.remember``),
the CLI (``vault-mem remember``, one process per item) and the MCP server (``vault-mem mcp``, one
server, a ``tools/call remember`` per item). Every path runs the one write policy, so the three
verdicts must agree item by item; this prints the refused counts per path and any item on which
they differ.

    python bench/secret_paths.py --set fresh61a [--code CHECKOUT]

Each item is written to a fresh vault under a temporary folder (the embedder off); "refused" is a
``SecretError`` (API), exit 1 with ``"kind": "SecretError"`` (CLI ``--json``), or an ``isError``
result whose text begins ``refused:`` (MCP). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", required=True)
    ap.add_argument("--code", type=Path, help="checkout whose vault_mem to run (default: this tree)")
    args = ap.parse_args()
    code = (args.code or HERE.parent).resolve()
    sys.path[:0] = [str(code), str(HERE / "data")]
    from vault_mem import Vault
    from vault_mem.errors import SecretError

    corpus = __import__(f"secrets_{args.set}")
    items = [(it, True) for it in corpus.FORMS] + [(it, False) for it in corpus.LOOK_ALIKES]
    # (each process starts in the temporary folder: `-m` puts its working folder first on sys.path,
    # so started from a checkout it would run that checkout's code, not --code's)
    env = {**os.environ, "PYTHONPATH": str(code), "VAULT_MEM_EMBEDDER": "none"}
    with tempfile.TemporaryDirectory(prefix="secret-paths-") as tmp:
        verdicts: dict[str, dict[str, bool]] = {}
        roots = {}
        for path in ("api", "cli", "mcp"):
            root = Path(tmp) / path
            subprocess.run([sys.executable, "-m", "vault_mem", "init", str(root)], env=env, check=True,
                           capture_output=True, cwd=tmp)
            roots[path] = root
        v = Vault(roots["api"])
        for it, _ in items:
            try:
                v.remember(it["key"], it["description"], it["body"], type="note")
                verdicts.setdefault(it["name"], {})["api"] = False
            except SecretError:
                verdicts.setdefault(it["name"], {})["api"] = True
        v.close()
        for it, _ in items:
            p = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(roots["cli"]), "--json", "remember",
                                it["key"], "-d", it["description"], "--type", "note", "--body", "-"],
                               input=it["body"].encode(), env=env, capture_output=True, cwd=tmp)
            out = p.stdout.decode(errors="replace")
            verdicts[it["name"]]["cli"] = p.returncode == 1 and '"SecretError"' in out
        proc = subprocess.Popen([sys.executable, "-m", "vault_mem", "mcp", str(roots["mcp"])], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp)

        def ask(message: dict) -> dict:
            proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
            proc.stdin.flush()
            while True:
                answer = json.loads(proc.stdout.readline())
                if answer.get("id") == message.get("id"):
                    return answer

        ask({"id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                         "clientInfo": {"name": "bench", "version": "1"}}})
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for n, (it, _) in enumerate(items, 1):
            res = ask({"id": n, "method": "tools/call", "params": {"name": "remember", "arguments": {
                "key": it["key"], "description": it["description"], "body": it["body"], "type": "note"}}})["result"]
            text = " ".join(c.get("text", "") for c in res.get("content", []))
            verdicts[it["name"]]["mcp"] = bool(res.get("isError")) and "refused:" in text
        proc.stdin.close()
        proc.wait(timeout=60)
    forms = {it["name"] for it, secret in items if secret}
    for path in ("api", "cli", "mcp"):
        tp = sum(verdicts[n][path] for n in forms)
        fp = sum(verdicts[n][path] for n in verdicts if n not in forms)
        print(f"{path}: {tp}/{len(forms)} forms refused, {fp}/{len(verdicts) - len(forms)} look-alikes refused")
    differ = [n for n, v in verdicts.items() if len(set(v.values())) > 1]
    print(f"items on which the paths differ: {len(differ)}" + "".join(f"\n  {n}: {verdicts[n]}" for n in differ))


if __name__ == "__main__":
    main()
