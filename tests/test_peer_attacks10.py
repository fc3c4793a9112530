"""A tenth attack run (issue 23, points 2, 3 and 6), on the daemon's one-shot writes and on what a
caller names itself: each through the real CLI, a real daemon and raw requests on its real socket.
Each attack's test fails on the code before its fix."""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, cli, daemon_log, daemon_ready, git, new_vault, spawn_daemon, wait_for

from vault_mem.config import VERSION
from vault_mem.store import daemon_socket as protocol

#: an agent name that ends its own trailer line and writes others: ``vault-mem log`` and ``undo``
#: read the last ``Memory-Key`` of a commit, so this commit would count as the victim's
FORGED = ("bot\nMemory-Key: victim\nMemory-Action: forget", "bot\u2028Memory-Key: victim",
          "bot\x85Memory-Key: victim", "bot\rMemory-Key: victim")


def _trailer_keys(root: Path) -> list[str]:
    return [line for line in git(root, "log", "--format=%B").splitlines() if "victim" in line]


@pytest.mark.parametrize("name", FORGED)
def test_an_agent_name_given_to_a_command_forges_no_trailer(tmp_path, name):
    root = tmp_path / "v"
    new_vault(root).close()
    by_option = cli("--vault", str(root), "--agent", name, "remember", "tea", "-d", "Drinks oolong",
                    "--body", "Since 2024.", env={"VAULT_MEM_DAEMON": "off"})
    by_env = cli("--vault", str(root), "remember", "tea", "-d", "Drinks oolong", "--body", "Since 2024.",
                 env={"VAULT_MEM_DAEMON": "off", "VAULT_MEM_AGENT": name})
    assert by_option.returncode != 0 and by_env.returncode != 0, (by_option.stdout, by_env.stdout)
    assert "agent name" in by_option.stderr and "agent name" in by_env.stderr
    assert _trailer_keys(root) == []
    assert not (root / "facts/tea.md").exists()


def _start(root: Path) -> subprocess.Popen:
    proc = spawn_daemon(root, {**os.environ, "PYTHONPATH": str(ROOT)},
                        root.parent / f"daemon-{time.monotonic_ns()}.log")
    wait_for(lambda: proc.poll() is not None or (daemon_ready(root, proc.pid) and
                                                  protocol.ask(root, "list", {}) is not None),
             timeout=60, what="the daemon to serve")
    assert proc.poll() is None, daemon_log(proc)
    return proc


def _raw(root: Path, request: dict) -> dict:
    data = json.dumps(request).encode()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(str(root / ".vault-mem/daemon.sock"))
        sock.sendall(struct.pack(">I", len(data)) + data)
        return protocol.read_message(sock, protocol.MAX_REPLY_BYTES)


def test_a_write_sent_to_the_daemon_with_a_forged_agent_name_commits_nothing(tmp_path):
    root = tmp_path / "v"
    new_vault(root).close()
    proc = _start(root)
    try:
        args = {"key": "tea", "description": "Drinks oolong", "body": "Since 2024.", "body_from": None,
                "type": "fact", "tags": None, "source": None, "pinned": None, "expires": None,
                "supersedes": None, "scope": None, "refs": None}
        for name in FORGED:
            reply = _raw(root, {"v": protocol.PROTOCOL, "version": VERSION, "op": "remember", "args": args,
                                "root": str(root), "writer": protocol.writer(name)})
            assert reply["ok"] is False or "error" in reply["result"], reply
        assert protocol.ask(root, "list", {}) is not None  # still serving
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert _trailer_keys(root) == []
    assert not (root / "facts/tea.md").exists()


def test_connections_that_send_a_byte_at_a_time_do_not_keep_the_daemon_from_answering(tmp_path):
    """Every connection slot held by a client that sends its request a byte every second (each
    ``recv`` gets data before the socket's timeout): the daemon drops them once the request's
    whole time is up, and answers again while they go on sending."""
    from vault_mem.daemon.serve import MAX_CONNECTIONS, REQUEST_READ_S

    root = tmp_path / "v"
    new_vault(root).close()
    proc = _start(root)
    slow = []
    try:
        data = json.dumps({"v": protocol.PROTOCOL, "version": VERSION, "op": "list", "args": {},
                           "root": str(root)}).encode()
        frame = struct.pack(">I", len(data)) + data
        for _ in range(MAX_CONNECTIONS + 2):
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(str(root / ".vault-mem/daemon.sock"))
            slow.append(sock)
        wait_for(lambda: protocol.ask(root, "list", {}, timeout=2) is None, what="every slot to be taken")
        answered, start, sent = False, time.monotonic(), 0
        while not answered and time.monotonic() - start < 4 * REQUEST_READ_S:
            for sock in slow:
                try:
                    sock.send(frame[sent:sent + 1])
                except OSError:
                    pass
            sent += 1
            time.sleep(1)
            answered = protocol.ask(root, "list", {}, timeout=2) is not None
        assert sent < len(frame), "the attack sent whole requests: make the frame longer"
        assert answered, "the daemon answered nobody while slow clients held every connection"
    finally:
        for sock in slow:
            sock.close()
        proc.terminate()
        proc.wait(timeout=30)
