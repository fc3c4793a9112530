"""dos33: a client that pipelines N requests of SIZE bytes on the real MCP server's stdin and never
reads its answers; prints the server's peak RSS (VmHWM) and RSS every 2 s, and the load.

    python bench/bench_mcp_pipelined.py VAULT N SIZE [recall|ping]

The server is ``python -m vault_mem mcp VAULT`` with ``VAULT_MEM_EMBEDDER=none``; ``CAP_MB``
(3000) stops the run when the server's RSS passes it, ``SECS`` (60) when the time is up.
"""

import json
import os
import subprocess
import sys
import threading
import time

root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "recall"
env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
proc = subprocess.Popen(
    [sys.executable, "-m", "vault_mem", "mcp", root],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    stderr=subprocess.DEVNULL,
    env=env,
)


def send(m):
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", **m}) + "\n").encode())
    proc.stdin.flush()


send(
    {
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
)
print(proc.stdout.readline()[:80])
send({"method": "notifications/initialized"})


def status():
    d = {}
    for ln in open(f"/proc/{proc.pid}/status"):
        if ln.startswith(("VmHWM", "VmRSS")):
            d[ln.split(":")[0]] = int(ln.split()[1]) // 1024
    return d


def writer():
    big = "x " * (size // 2)
    for i in range(n):
        if mode == "recall":
            line = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": {"name": "recall", "arguments": {"query": big}},
                }
            )
        else:
            line = json.dumps(
                {"jsonrpc": "2.0", "id": i + 1, "method": "ping", "params": {"_meta": {"pad": big}}}
            )
        try:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            return


t = threading.Thread(target=writer, daemon=True)
t.start()
t0 = time.time()
while t.is_alive() and time.time() - t0 < float(os.environ.get("SECS", "60")):
    time.sleep(2)
    s = status()
    print(round(time.time() - t0), s, flush=True)
    if s.get("VmRSS", 0) > int(os.environ.get("CAP_MB", "3000")):
        print("CAP reached")
        break
print("final", status(), "writer done:", not t.is_alive())
proc.kill()
print("load", os.getloadavg())
