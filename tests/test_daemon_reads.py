"""Reads through the daemon's socket: a real ``python -m vault_mem daemon`` process, a real Unix
socket, the real model where results are compared.

The CLI is driven in-process (``cli``): it asks the daemon over the socket exactly as a one-shot
``vault-mem`` does; ``VAULT_MEM_DAEMON=off`` makes it take the in-process path against the same
vault, so both answers can be compared. :func:`protocol.ask` is called directly where a test must
know the daemon (not the fallback) answered.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from conftest import ROOT, cli, daemon_log, daemon_ready, daemon_thread, spawn_daemon, wait_for

from vault_mem.store import daemon_socket as protocol

SOCK = Path(".vault-mem") / protocol.SOCKET_FILE
OFF = {protocol.USE_ENV: "off"}

MEMORIES = [
    ("editor-choice", "preference", "Uses Helix as the main editor", "Switched from vim in 2025."),
    ("coffee-order", "preference", "Drinks a flat white with oat milk", ""),
    ("ledger-database", "decision", "Use Postgres for the ledger (2026-03-02)",
     "because it has row-level locks and the team knows it."),
    ("home-city", "fact", "Lives in Porto, near the river", ""),
    ("car", "fact", "Drives a 2019 Subaru Outback", "Bought second hand."),
    ("release-steps", "procedure", "How to cut a release",
     "1. Bump the version.\n2. Run the tests.\n3. Tag and push.\n"),
    ("sister-birthday", "fact", "Sister's birthday is on 12 May", ""),
]


def start(root: Path, *, embedder: str = "none", **env) -> subprocess.Popen:
    """A real daemon process for ``root``, once it answers on its socket."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), "VAULT_MEM_EMBEDDER": embedder, **env}
    proc = spawn_daemon(root, full, root.parent / f"daemon-{time.monotonic_ns()}.log")
    wait_for(lambda: proc.poll() is not None or daemon_ready(root, proc.pid), timeout=60,
             what="the daemon to start")
    assert proc.poll() is None, daemon_log(proc)
    return proc


def serving(root: Path) -> bool:
    return protocol.ask(root, "list", {}) is not None


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return daemon_log(proc)


def fill(root: Path) -> None:
    for key, kind, description, body in MEMORIES:
        args = ["remember", key, "--description", description, "--type", kind, "--vault", str(root)]
        assert cli(*args, "--body", body).returncode == 0


def raw(root: Path, payload: bytes, *, timeout: float = 10) -> dict | None:
    """Send ``payload`` as is on the socket; the framed reply (None when the daemon just closed)."""
    # through the folder's descriptor, as the CLI connects: the plain path of a vault under a deep
    # temporary folder (pytest-xdist adds popen-gwN/) runs past the 107-byte limit of an address
    dir_fd = protocol.open_state_dir(root)
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        try:
            s.connect(protocol.socket_address(dir_fd, root))
        finally:
            os.close(dir_fd)
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        try:
            return protocol.read_message(s, protocol.MAX_REPLY_BYTES)
        except protocol.ProtocolError:
            return None


def frame(obj) -> bytes:
    data = json.dumps(obj).encode()
    return struct.pack(">I", len(data)) + data


def request(op: str, args: dict) -> bytes:
    return frame({"v": protocol.PROTOCOL, "version": protocol.VERSION, "op": op, "args": args})


@pytest.mark.slow
def same_nonce(text: str) -> str:
    return re.sub(r"memory-[0-9a-f]{16}", "memory-NONCE", text)


def test_reads_through_the_socket_equal_the_in_process_path_with_the_real_model(vault, monkeypatch):
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")  # both paths: the daemon and this process
    root = vault.root
    fill(root)
    proc = start(root, embedder="local")
    try:
        wait_for(lambda: serving(root), timeout=60, what="the socket")
        assert stat.S_IMODE(os.lstat(root / SOCK).st_mode) == 0o600
        assert stat.S_ISSOCK(os.lstat(root / SOCK).st_mode)
        commands = [
            ["recall", "which", "editor", "do", "I", "use", "--json"],
            ["recall", "what", "automobile", "do", "I", "own", "--json"],  # no shared word: vectors
            ["recall", "database", "for", "the", "ledger", "--type", "decision", "-k", "2", "--json"],
            ["recall", "how", "do", "we", "release", "--full", "--json"],
            ["recall", "quantum", "chromodynamics", "lecture", "--json"],  # nothing answers
            ["recall", "which", "editor"],  # the text output too
            ["recall", "where", "do", "I", "park", "--queries", "Subaru car", "--json"],  # other phrasings
            ["get", "release-steps", "--json"],
            ["get", "ledger-database"],
            ["list", "--json"],
            ["list", "--type", "fact"],
            ["get", "editr-choice"],  # an error: same message, same exit code
        ]
        for command in commands:
            via_socket = cli(*command, "--vault", str(root))
            in_process = cli(*command, "--vault", str(root), env=OFF)
            assert (via_socket.returncode, via_socket.stdout, via_socket.stderr) == \
                (in_process.returncode, in_process.stdout, in_process.stderr), command
        # and the daemon is what answered (not a silent fallback on both sides)
        answered = protocol.ask(root, "recall", {"query": "what automobile do I own"})
        assert answered is not None
        result, _notices = answered
        assert [h["key"] for h in result["hits"]][:1] == ["car"]
        assert result["hits"][0]["match"] == "strong" and not result["keyword_only"]
        local = json.loads(cli("recall", "what automobile do I own", "--json", "--vault", str(root),
                               env=OFF).stdout)
        assert result == local
        answered = protocol.ask(root, "recall", {"query": "where do I park", "queries": ["Subaru car"]})
        assert answered is not None and answered[0]["hits"][0]["key"] == "car"
        for name, event in (("user-prompt-submit", {"prompt": "which editor do I use?", "cwd": str(root)}),
                            ("user-prompt-submit", {"prompt": "tell me about quantum chromodynamics"}),
                            ("session-start", {"hook_event_name": "SessionStart"})):
            via_socket = cli("--vault", str(root), "hook", name, input=json.dumps(event))
            in_process = cli("--vault", str(root), "hook", name, input=json.dumps(event), env=OFF)
            # equal but for the fence's nonce, drawn afresh for every rendering (model/render.py)
            assert (via_socket.returncode, same_nonce(via_socket.stdout), via_socket.stderr) == \
                (in_process.returncode, same_nonce(in_process.stdout), in_process.stderr), name
            assert protocol.ask(root, "hook", {"name": name, "event": event}) is not None
        assert "Helix" in cli("--vault", str(root), "hook", "user-prompt-submit",
                              input=json.dumps({"prompt": "which editor do I use?"})).stdout
    finally:
        log = stop(proc)
    assert "Traceback" not in log
    assert not (root / SOCK).exists()  # a clean stop removes the socket


def test_a_one_shot_read_through_the_daemon_imports_nothing_heavy(vault):
    fill(vault.root)
    proc = start(vault.root)
    try:
        wait_for(lambda: serving(vault.root), what="the socket")
        script = textwrap.dedent(f"""
            import io, json, sys
            from vault_mem.adapters.cli import main
            sys.stdin = io.StringIO(json.dumps({{"prompt": "which editor do I use"}}))
            codes = [main(["--vault", {str(vault.root)!r}, "recall", "editor", "--json"]),
                     main(["--vault", {str(vault.root)!r}, "hook", "user-prompt-submit"])]
            heavy = sorted(m for m in ("numpy", "sqlite3", "sqlean", "sqlite_vec", "onnxruntime", "git",
                                       "watchdog", "httpx", "vault_mem.vault.core", "vault_mem.index.sidecar")
                           if m in sys.modules)
            print(json.dumps({{"codes": codes, "heavy": heavy}}))
        """)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
        report = json.loads(out.strip().splitlines()[-1])
        assert report == {"codes": [0, 0], "heavy": []}
        assert '"editor-choice"' in out and "Helix" in out
    finally:
        stop(proc)


def test_a_hand_edit_or_a_remember_is_found_by_the_very_next_read_through_the_socket(both_platforms, vault):
    root = vault.root
    # a long debounce: only the read's own catch-up can make the edit searchable in time
    proc = start(root, VAULT_MEM_DEBOUNCE_MS="5000")
    try:
        wait_for(lambda: serving(root), what="the socket")
        (root / "facts" / "tea-habit.md").write_text(
            "---\ndescription: Drinks oolong tea every morning\n---\nFrom a shop in Taipei.\n")
        result, _ = protocol.ask(root, "recall", {"query": "oolong"})
        assert [h["key"] for h in result["hits"]] == ["tea-habit"]
        # an editor's save by rename over the original
        tmp = root / "facts" / ".tea-habit.md.swp"
        tmp.write_text("---\ndescription: Drinks jasmine tea every morning\n---\n")
        os.replace(tmp, root / "facts" / "tea-habit.md")
        result, _ = protocol.ask(root, "recall", {"query": "jasmine"})
        assert [h["key"] for h in result["hits"]] == ["tea-habit"]
        assert protocol.ask(root, "recall", {"query": "oolong"})[0]["hits"] == []
        (root / "facts" / "tea-habit.md").unlink()
        assert protocol.ask(root, "recall", {"query": "jasmine"})[0]["hits"] == []
        assert cli("remember", "bike", "--description", "Rides a green Brompton", "--vault", str(root)).returncode == 0
        got = cli("recall", "brompton", "--json", "--vault", str(root))
        assert [h["key"] for h in json.loads(got.stdout)["hits"]] == ["bike"]
        assert protocol.ask(root, "get", {"key": "bike"})[0]["description"] == "Rides a green Brompton"
    finally:
        stop(proc)


def test_after_kill_9_the_next_call_falls_back_and_a_new_daemon_replaces_the_stale_socket(both_platforms, vault):
    root = vault.root
    fill(root)
    proc = start(root)
    wait_for(lambda: serving(root), what="the socket")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert stat.S_ISSOCK(os.lstat(root / SOCK).st_mode)  # left behind
    assert protocol.ask(root, "list", {}) is None  # refused: nobody listens
    got = cli("recall", "editor", "--json", "--vault", str(root))
    assert got.returncode == 0 and json.loads(got.stdout)["hits"][0]["key"] == "editor-choice"
    again = start(root)
    try:
        wait_for(lambda: serving(root), what="the new daemon's socket")
    finally:
        assert "Traceback" not in stop(again)


def test_a_planted_symlink_at_the_socket_path_is_refused_and_its_target_untouched(vault, tmp_path):
    root = vault.root
    fill(root)
    # a socket someone else listens on, and a link to it where the daemon's socket goes
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(elsewhere / "trap.sock"))
    listener.listen()
    listener.settimeout(0.5)
    (root / SOCK).symlink_to(elsewhere / "trap.sock")
    assert protocol.ask(root, "list", {}) is None  # the client never follows the link
    with pytest.raises(TimeoutError):
        listener.accept()
    got = cli("list", "--json", "--vault", str(root))
    assert got.returncode == 0 and len(json.loads(got.stdout)) == len(MEMORIES)
    # the daemon refuses it too, names it, and leaves link and target alone
    target = tmp_path / "target.txt"
    target.write_text("precious\n")
    os.unlink(root / SOCK)
    (root / SOCK).symlink_to(target)
    proc = start(root)
    try:
        wait_for(lambda: "not serving reads" in daemon_log(proc), what="the refusal in the log")
        assert os.path.islink(root / SOCK) and os.readlink(root / SOCK) == str(target)
        assert target.read_text() == "precious\n"
        assert protocol.ask(root, "list", {}) is None
        assert cli("get", "car", "--vault", str(root)).returncode == 0  # reads still work, in-process
    finally:
        log = stop(proc)
    assert "symlink" in log and "Traceback" not in log
    assert os.path.islink(root / SOCK) and target.read_text() == "precious\n"
    listener.close()


def test_malformed_requests_get_an_error_reply_and_the_daemon_keeps_serving(vault):
    root = vault.root
    fill(root)
    proc = start(root)
    try:
        wait_for(lambda: serving(root), what="the socket")
        too_big = struct.pack(">I", protocol.MAX_REQUEST_BYTES + 1) + b"{}"
        cases = {
            "over the limit": too_big,
            "not JSON": struct.pack(">I", 9) + b"not json!",
            "nested past the parser's depth": struct.pack(">I", 200_000) + b"[" * 200_000,
            "cut short": struct.pack(">I", 100) + b'{"op":',
            "not an object": frame([1, 2, 3]),
            "no version": frame({"op": "list", "args": {}}),
            "unknown op": request("forget", {"key": "car"}),
            "bad args": request("recall", {"query": 42}),
            "unknown arg": request("get", {"key": "car", "body": "x"}),
            "args not an object": request("list", ["fact"]),
            "bad type": request("list", {"type": "gossip"}),
        }
        for what, payload in cases.items():
            reply = raw(root, payload)
            assert reply is not None and reply["ok"] is False and reply["error"], what
        # another vault-mem's client is told so, and a client of ours falls back on such a reply
        other = raw(root, frame({"v": protocol.PROTOCOL, "version": "0.0.0-other", "op": "list", "args": {}}))
        assert other["ok"] is False and other["kind"] == protocol.UNAVAILABLE
        assert raw(root, b"") is not None  # connected and sent nothing: an error, not a hang
        reply = raw(root, b"\x00\x00")  # half a header
        assert reply is None or reply["ok"] is False
        good = raw(root, request("get", {"key": "editor-choice"}))
        assert good["ok"] is True and good["result"]["key"] == "editor-choice"
        assert proc.poll() is None
    finally:
        log = stop(proc)
    assert "Traceback" not in log


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as another user")
@pytest.mark.skipif(os.environ.get("VAULT_MEM_PORTABLE") == "1",
                    reason="the kernel's peer uid check is native; the portable check (no socket unless its "
                           "folder is this user's alone) is tested in test_platform.py")
def test_a_peer_with_another_uid_is_refused(vault):
    root = vault.root
    fill(root)
    proc = start(root)
    try:
        wait_for(lambda: serving(root), what="the socket")
        client = textwrap.dedent(f"""
            import json, os, socket, struct, sys, time
            os.chdir({str(root / ".vault-mem")!r})   # reached as root, then become nobody
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect("daemon.sock")
            except PermissionError:
                print("EACCES"); sys.exit(0)
            data = json.dumps({{"v": {protocol.PROTOCOL}, "version": {protocol.VERSION!r}, "op": "list",
                                "args": {{}}}}).encode()
            time.sleep(0.3)  # a slow client: the refusal must still reach it, not a broken pipe
            s.sendall(struct.pack(">I", len(data)) + data)
            size = struct.unpack(">I", s.recv(4))[0]
            print(s.recv(size).decode())
        """)

        def as_nobody() -> str:
            run = subprocess.run([sys.executable, "-c", client], capture_output=True, text=True, timeout=30,
                                 check=False)
            assert run.returncode == 0, run.stderr
            return run.stdout.strip()

        assert as_nobody() == "EACCES"  # modes 0700/0600: another user cannot even connect
        os.chmod(root / SOCK, 0o666)  # and if the modes were loosened, the uid check still refuses
        os.chmod(root / ".vault-mem", 0o711)
        reply = json.loads(as_nobody())
        assert reply["ok"] is False and reply["kind"] == protocol.UNAVAILABLE and "refused" in reply["error"]
        assert "car" not in json.dumps(reply)
        assert serving(root)
    finally:
        log = stop(proc)
    assert "refused a read from uid 65534" in log


def test_a_read_waits_for_the_events_of_a_save_still_on_their_way(vault, monkeypatch):
    """The daemon's read fences the watcher: a save whose events have not reached the daemon
    yet (its observer thread is behind, as on a loaded machine) is still seen by the next read,
    not only by a later one. Real watchdog and files; the observer is slowed for memory files."""

    from vault_mem.adapters.reads import READS
    from vault_mem.daemon.process import Daemon
    from vault_mem.daemon.watcher import FENCE_MARK, EventHandler

    handle = EventHandler.on_any_event

    def slow(self, event):
        if FENCE_MARK not in os.fsdecode(event.src_path) and os.fsdecode(event.src_path).endswith(".md"):
            time.sleep(0.2)
        handle(self, event)

    monkeypatch.setattr(EventHandler, "on_any_event", slow)
    root = vault.root
    daemon = Daemon(root, commit_external_edits="off", debounce_ms=5000, reads=READS)
    with daemon_thread(daemon, 60):
        wait_for(lambda: serving(root), what="the socket")
        (root / "facts" / "kite.md").write_text("---\ndescription: Flies a kite called Zephyrine\n---\n")
        result, _ = protocol.ask(root, "recall", {"query": "Zephyrine"})
        assert [h["key"] for h in result["hits"]] == ["kite"]


def test_a_framed_message_is_read_or_drained_by_one_reading_of_its_frame():
    """The framing (a 32-bit length, then that many bytes): read_message parses a message and
    drain_message reads one and drops it, each stopping at its end (the next is read whole);
    both refuse a length over the limit, read_message bytes that are not JSON, and a frame cut
    short."""
    a, b = socket.socketpair()
    with a, b:
        protocol.send_message(a, {"op": "list"})
        protocol.send_message(a, ["dropped", "x" * 1000])
        protocol.send_message(a, {"op": "get", "args": {"key": "car"}})
        assert protocol.read_message(b, 4096) == {"op": "list"}
        protocol.drain_message(b, 4096)
        assert protocol.read_message(b, 4096, within=5) == {"op": "get", "args": {"key": "car"}}
    cases = [(read, struct.pack(">I", 5000) + b"{}", "over the limit of 4096")
             for read in (protocol.read_message, protocol.drain_message)]
    cases += [(protocol.read_message, struct.pack(">I", 9) + b"not json!", "not a JSON message")]
    cases += [(read, struct.pack(">I", 100) + b'{"op":', "connection closed after 6 of 100 bytes") for read in (protocol.read_message, protocol.drain_message)]
    for read, sent, said in cases:
        a, b = socket.socketpair()
        with a, b:
            a.sendall(sent)
            a.shutdown(socket.SHUT_WR)
            with pytest.raises(protocol.ProtocolError, match=said):
                read(b, 4096)


@pytest.mark.parametrize("planted", ["link", "file"])
def test_neither_client_talks_to_a_socket_that_is_not_ours(vault, tmp_path, planted, monkeypatch):
    """The rule of which socket a client talks to, for a read (``ask``) and a write (``submit``)
    alike: at the socket's path a link to a listening socket, or a planted file, is never
    connected to; the read does the work here, the write is not taken (written here)."""
    monkeypatch.delenv(protocol.USE_ENV, raising=False)
    root = vault.root
    elsewhere = Path(tempfile.mkdtemp(prefix="vm-sock-", dir="/tmp"))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(elsewhere / "trap.sock"))
        listener.listen()
        listener.settimeout(0.2)
        (root / SOCK).unlink(missing_ok=True)
        if planted == "link":
            (root / SOCK).symlink_to(elsewhere / "trap.sock")
        else:
            (root / SOCK).write_text("not a socket\n")
        assert protocol.ask(root, "list", {}) is None
        assert protocol.submit(root, "remember", {}, protocol.writer(None)) == (protocol.NOT_TAKEN, "no socket of ours")
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
        shutil.rmtree(elsewhere)
