"""What one ``vault-mem mcp`` process costs before it answers, and what of that is the MCP SDK's
import: the CPU every agent session pays at start (issue 29) and the test suite pays per server
it starts (~60 of them, issue 28).

    python bench/bench_mcp_spawn.py              # 8 spawns, 5 imports
    python bench/bench_mcp_spawn.py --spawns 20 --imports 10

Three figures, on a new vault of its own in a temporary folder (keyword-only,
``VAULT_MEM_EMBEDDER=none``: the model's load is not what is measured here):
- ``spawn_cpu_ms``: CPU time (user + system, the server and every process it waited for, from
  ``getrusage(RUSAGE_CHILDREN)``) of ``python -m vault_mem mcp VAULT`` from its start to its
  answer to ``tools/list`` (after ``initialize``), then its exit when stdin closes; p50 (min-max),
  with the wall time to that answer;
- ``sdk_import_cpu_ms``: a new interpreter that imports what ``mcp_server`` imports of the SDK
  (``mcp.types``, ``mcp.server.lowlevel``, ``mcp.server.stdio``, ...) as it imports them
  (``vault_mem.adapters.mcp_sdk.lean_import`` first, itself included), less a bare interpreter's
  start; alternated with that bare start, so the load weighs on both alike;
  ``whole_sdk_import_cpu_ms`` the same imports without ``lean_import`` (the SDK's package
  ``__init__`` files run: its client, ``MCPServer``). Both end with
  ``os._exit`` as the server does (``cli.end_process``): an interpreter's normal exit, freeing
  every module, would add ~0.1 s to the import;
- ``sdk_import_by_package_ms``: that import under ``python -X importtime``, the time of each
  module's own body summed by top-level package (inflated by the measuring, compare them with
  each other): which parts of the SDK's import the stdio server pulls in without using them
  (the HTTP transports' starlette, uvicorn, sse_starlette; OpenTelemetry; the client).
Prints one JSON object and the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: what vault_mem.adapters.mcp_server imports of the SDK (build_server, serve_async), as a plain
#: import would (``mcp/__init__.py`` and ``mcp/server/__init__.py`` run: the client, MCPServer)
WHOLE_SDK_IMPORT = ("import anyio; from mcp import types; from mcp.server.lowlevel import NotificationOptions, Server; "
                    "from mcp.server.subscriptions import ListenHandler; from mcp.shared.exceptions import MCPError; "
                    "from mcp.server.stdio import stdio_server")
#: the same as the server imports it (vault_mem.adapters.mcp_sdk: those two ``__init__`` not run)
SDK_IMPORT = "from vault_mem.adapters.mcp_sdk import lean_import; lean_import(); " + WHOLE_SDK_IMPORT


def cpu_of(argv: list[str], env: dict[str, str], **kw) -> float:
    """CPU seconds of a child process run to its end (and of every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, check=True, capture_output=True, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_spawn(vault: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU s, wall s to the tools/list answer) of one server, from its start to its exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "vault_mem", "mcp", str(vault)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()

    send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                      "clientInfo": {"name": "bench", "version": "1"}}})
    proc.stdout.readline()
    send({"method": "notifications/initialized"})
    send({"id": 2, "method": "tools/list"})
    answer = proc.stdout.readline()
    wall = time.perf_counter() - started
    if b'"tools"' not in answer:
        raise SystemExit(f"the server did not answer tools/list: {answer[:200]!r}")
    proc.stdin.close()
    proc.wait(timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def by_package(env: dict[str, str]) -> dict[str, float]:
    """Own import time (ms) of the SDK import's modules, summed by top-level package."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", SDK_IMPORT], env=env, check=True,
                         capture_output=True, text=True).stderr
    total: Counter[str] = Counter()
    for line in err.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        total[parts[2].strip().split(".")[0]] += int(parts[0]) / 1000
    return {name: round(ms, 1) for name, ms in total.most_common(14)}


def spread(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"{statistics.median(ms):.0f} ({ms[0]:.0f}-{ms[-1]:.0f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spawns", type=int, default=8)
    ap.add_argument("--imports", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="vm-mcp-spawn-") as tmp:
        home = Path(tmp)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "xdg"), "VAULT_MEM_EMBEDDER": "none",
               "PYTHONPATH": str(ROOT), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Bench",
               "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "Bench",
               "GIT_COMMITTER_EMAIL": "bench@example.com"}
        vault = home / "vault"
        subprocess.run([sys.executable, "-m", "vault_mem", "init", str(vault)], env=env, check=True,
                       capture_output=True)
        one_spawn(vault, env)  # not counted: the page cache, bytecode
        spawns = [one_spawn(vault, env) for _ in range(args.spawns)]
        imports, whole, bare = [], [], []
        for _ in range(args.imports):
            imports.append(cpu_of([sys.executable, "-c", SDK_IMPORT + "; import os; os._exit(0)"], env))
            whole.append(cpu_of([sys.executable, "-c", WHOLE_SDK_IMPORT + "; import os; os._exit(0)"], env))
            bare.append(cpu_of([sys.executable, "-c", "import os; os._exit(0)"], env))
        sdk = [max(0.0, i - b) for i, b in zip(imports, bare, strict=True)]
        sdk_whole = [max(0.0, i - b) for i, b in zip(whole, bare, strict=True)]
        print(json.dumps({
            "spawn_cpu_ms": spread([c for c, _ in spawns]),
            "spawn_to_tools_list_wall_ms": spread([w for _, w in spawns]),
            "sdk_import_cpu_ms": spread(sdk),
            "whole_sdk_import_cpu_ms": spread(sdk_whole),
            "sdk_import_by_package_ms": by_package(env),
        }, indent=1))
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
