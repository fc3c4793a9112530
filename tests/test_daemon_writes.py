"""One-shot writes through the daemon's socket: a real ``python -m vault_mem daemon`` process and
real ``python -m vault_mem remember``/``forget`` processes, compared with the same commands on an
identical vault with no daemon (both vaults copies of one template).

The daemon says in its log when it made a write for a command; the tests read that line where
they must know which process made it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, daemon_log, daemon_ready, git, new_vault, run_cli, spawn_daemon, wait_for

from vault_mem.model.secret_rules import expand_example
from vault_mem.platform import peers
from vault_mem.store import daemon_socket as protocol

SECRET = expand_example("ghp_<a36>", seed="daemon-writes")


def start(root: Path, **env: str) -> subprocess.Popen:
    """A real daemon for ``root`` in this test's environment (plus ``env``), once it is ready."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    proc = spawn_daemon(root, full, root.parent / f"daemon-{time.monotonic_ns()}.log")
    wait_for(lambda: proc.poll() is not None or (daemon_ready(root, proc.pid) and
                                                  protocol.ask(root, "list", {}) is not None),
             timeout=60, what="the daemon to serve")
    assert proc.poll() is None, daemon_log(proc)
    return proc


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return daemon_log(proc)


def done_by_daemon(proc: subprocess.Popen, op: str, key: str) -> int:
    """How many times the daemon said it made ``op`` of ``key`` for a command."""
    return daemon_log(proc).count(f"vault-mem: {op} of {key} done for a command")


def last_commit(root: Path) -> str:
    """HEAD's author, committer, message and patch, without its dates and id."""
    return git(root, "log", "-1", "-p", "--format=%an <%ae>%n%cn <%ce>%n%B")


def commits_for(root: Path, key: str) -> list[str]:
    return git(root, "log", f"--grep=^Memory-Key: {key}$", "--format=%s").splitlines()


@pytest.fixture
def twins(tmp_path):
    """Two identical vaults: the first with a daemon running, the second without."""
    a, b = new_vault(tmp_path / "a"), new_vault(tmp_path / "b")
    a.close()
    b.close()
    proc = start(a.root)
    yield a.root, b.root, proc
    stop(proc)


def same_answer(a: Path, b: Path, args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``vault-mem ARGS`` on ``a`` (daemon) and ``b`` (none); both print the same, but for
    the vault's path and the commit id; returns ``a``'s run."""
    ra = run_cli("--vault", str(a), *args, env=env)
    rb = run_cli("--vault", str(b), *args, env={**(env or {}), protocol.USE_ENV: "off"})

    def plain(text: str, root: Path) -> str:
        return text.replace(str(root), "VAULT")

    assert ra.returncode == rb.returncode, (ra.stderr, rb.stderr)
    assert plain(ra.stderr, a) == plain(rb.stderr, b)
    if "--json" in args:
        ja, jb = json.loads(ra.stdout), json.loads(rb.stdout)
        for j, root in ((ja, a), (jb, b)):
            assert j.pop("vault", str(root)) == str(root)
            j.pop("commit", None)
        assert ja == jb
    else:
        assert len(ra.stdout.split()) == len(rb.stdout.split())
    return ra


def test_a_write_through_the_daemon_makes_the_commit_the_command_makes(twins):
    """remember (create, update, identical), forget: the daemon makes each (its log says so),
    with the author, committer, message, trailers, patch and output of the same command run with
    no daemon; one commit per write."""
    a, b, proc = twins
    steps = [
        ["remember", "tea", "-d", "Drinks oolong in the afternoon", "--body", "Since 2024.", "--tags", "x,y",
         "--json"],
        ["--agent", "codex", "remember", "tea", "-d", "Drinks oolong, never jasmine", "--body", "Since 2024.",
         "--pinned", "--expires", "2099-01-02", "--json"],
        ["--agent", "codex", "remember", "tea", "-d", "Drinks oolong, never jasmine", "--body", "Since 2024.",
         "--pinned", "--expires", "2099-01-02", "--json"],
        ["remember", "bike", "-d", "Rides a green Brompton", "--type", "preference", "--refs", "docs/a.md"],
        ["forget", "bike", "--json"],
    ]
    for n, args in enumerate(steps):
        before_a, before_b = git(a, "rev-list", "--count", "HEAD"), git(b, "rev-list", "--count", "HEAD")
        same_answer(a, b, args)
        key = args[args.index("remember" if "remember" in args else "forget") + 1]
        op = "remember" if "remember" in args else "forget"
        assert done_by_daemon(proc, op, key) >= 1, daemon_log(proc)
        grew = int(git(a, "rev-list", "--count", "HEAD")) - int(before_a)
        assert grew == int(git(b, "rev-list", "--count", "HEAD")) - int(before_b)
        assert grew == (0 if n == 2 else 1)  # the identical write makes none
        assert last_commit(a) == last_commit(b)
    assert git(a, "log", "--grep=^Agent: codex$", "--format=%an").splitlines() == ["codex"]
    assert git(a, "status", "--porcelain") == git(b, "status", "--porcelain") == ""
    assert done_by_daemon(proc, "remember", "tea") == 3 and done_by_daemon(proc, "forget", "bike") == 1


def test_a_body_from_stdin_and_its_limit_are_the_commands(twins):
    """A body read from stdin is sent and committed as read; one over the vault's limit (the
    default, 64 KiB) is refused with the command's own message, by the daemon, and nothing is
    committed."""
    a, b, proc = twins
    body = "line one\nline two — ünïcode\n"
    ra = run_cli("--vault", str(a), "remember", "piped", "-d", "A piped body", "--body", "-", input=body)
    rb = run_cli("--vault", str(b), "remember", "piped", "-d", "A piped body", "--body", "-", input=body,
                 env={protocol.USE_ENV: "off"})
    assert ra.returncode == rb.returncode == 0, (ra.stderr, rb.stderr)
    assert last_commit(a) == last_commit(b)
    assert done_by_daemon(proc, "remember", "piped") == 1
    big = "x" * (64 * 1024 + 1)
    ra = run_cli("--vault", str(a), "remember", "big", "-d", "Too big", "--body-file", "-", input=big)
    rb = run_cli("--vault", str(b), "remember", "big", "-d", "Too big", "--body-file", "-", input=big,
                 env={protocol.USE_ENV: "off"})
    assert ra.returncode == rb.returncode == 1
    assert ra.stderr.replace(str(a), "V") == rb.stderr.replace(str(b), "V")
    assert "over the vault's limit of 65536 bytes" in ra.stderr
    assert done_by_daemon(proc, "remember", "big") == 1
    assert commits_for(a, "big") == commits_for(b, "big") == []


def test_the_secret_gate_refuses_a_write_through_the_daemon_as_without(twins):
    """A credential in the body, the description or a tag is refused the same way (exit code,
    message, JSON), by the daemon, and nothing lands on disk or in git."""
    a, b, proc = twins
    for n, args in enumerate([["--body", f"token {SECRET}"], ["-d", f"the key {SECRET}"],
                              ["--tags", f"ok,{SECRET}"]]):
        key = f"leak-{n}"
        cmd = ["remember", key, *(["-d", "A memory"] if args[0] != "-d" else []), *args, "--json"]
        ra = same_answer(a, b, cmd)
        assert ra.returncode == 1 and json.loads(ra.stdout)["kind"] == "SecretError", ra.stdout
        assert SECRET not in ra.stdout + ra.stderr
        assert done_by_daemon(proc, "remember", key) == 1
        assert commits_for(a, key) == [] and not list(a.glob(f"*/{key}.md"))
    assert git(a, "status", "--porcelain") == ""


def test_without_a_daemon_or_in_another_environment_the_command_writes_itself(tmp_path):
    """No daemon: the command writes. A daemon whose environment differs in what can change a
    commit (the time zone, a git variable) or whose umask differs answers before doing anything,
    and the command writes itself: one commit each, none by the daemon."""
    root = new_vault(tmp_path / "v").root
    r = run_cli("--vault", str(root), "remember", "alone", "-d", "Written with no daemon")
    assert r.returncode == 0, r.stderr
    proc = start(root)
    try:
        for n, env in enumerate([{"TZ": "Asia/Kathmandu"}, {"GIT_AUTHOR_NAME": "Someone Else"}]):
            r = run_cli("--vault", str(root), "remember", f"env-{n}", "-d", "Written by the command", env=env)
            assert r.returncode == 0, r.stderr
            assert commits_for(root, f"env-{n}") == [f"remember: env-{n} — Written by the command"]
            assert done_by_daemon(proc, "remember", f"env-{n}") == 0
        assert "+0545" in git(root, "log", "-1", "--skip=1", "--format=%ad", "--date=raw")
        umask = subprocess.run([sys.executable, "-c", "import os, sys; os.umask(0o027); from vault_mem.adapters.cli "
                                "import main; sys.exit(main(sys.argv[1:]))", "--vault", str(root), "remember",
                                "masked", "-d", "Another umask"],
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=False)
        assert umask.returncode == 0, umask.stderr
        assert done_by_daemon(proc, "remember", "masked") == 0 and len(commits_for(root, "masked")) == 1
        log = daemon_log(proc)
        assert "TZ" in log and "GIT_AUTHOR_NAME" in log and "umask" in log
        assert protocol.writer_env()  # the test's own environment names git variables
    finally:
        stop(proc)
    assert len(commits_for(root, "alone")) == 1


def test_a_daemon_killed_during_a_write_gets_an_exact_report_and_no_second_write(tmp_path):
    """The daemon killed while it has the write (before it lands, then after its commit): the
    command says the write may or may not have been made and how to tell, exits 3, and never
    writes it itself; ``git log -p`` has one commit for the second, none for the first."""
    for point, landed in (("before-write", False), ("after-commit", True)):
        root = new_vault(tmp_path / point).root
        env = {"VAULT_MEM_PAUSE_AT": point}
        proc = start(root, **env)
        cmd = subprocess.Popen([sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", "cut",
                                "-d", "A write the daemon dies in"],
                               env={**os.environ, "PYTHONPATH": str(ROOT), **env}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        paused = root / ".vault-mem" / f"paused-{point}"
        try:
            wait_for(lambda: paused.exists() or cmd.poll() is not None, timeout=60, what="the write to pause")
            assert paused.read_text() == str(proc.pid)  # the daemon has it, not the command
            proc.send_signal(signal.SIGKILL)
            out, err = cmd.communicate(timeout=60)
        finally:
            if cmd.poll() is None:
                cmd.kill()
            stop(proc)
        assert cmd.returncode == 3, err
        assert "may or may not have been made" in err and "not made again here" in err and "log cut" in err
        assert commits_for(root, "cut") == (["remember: cut — A write the daemon dies in"] if landed else [])
        # the next command (no daemon) finishes or rolls back what the killed one left: nothing twice
        paused.unlink(missing_ok=True)
        after = run_cli("--vault", str(root), "list", "--json")
        assert after.returncode == 0, after.stderr
        assert ("cut" in [m["key"] for m in json.loads(after.stdout)]) is landed
        assert len(commits_for(root, "cut")) == (1 if landed else 0)
        assert git(root, "log", "-p", "--format=%s").count("remember: cut") == (1 if landed else 0)


def test_a_write_the_daemon_cannot_start_in_time_is_taken_back_and_done_by_the_command(tmp_path):
    """The daemon's main thread held up (paused before it flushes INDEX.md after a hand edit)
    longer than a write may wait to start: the write is taken back from its queue unstarted and
    the command makes it itself, once; the daemon never makes it afterwards."""
    root = new_vault(tmp_path / "v").root
    env = {"VAULT_MEM_PAUSE_AT": "index-flush"}
    state = root / ".vault-mem"
    paused = state / "paused-index-flush"
    proc = spawn_daemon(root, {**os.environ, "PYTHONPATH": str(ROOT), **env}, tmp_path / "daemon.log")
    try:
        seen = pause_again(proc, paused, None)  # at start-up, before it serves
        (state / "resume-index-flush").write_text("")
        wait_for(lambda: protocol.ask(root, "list", {}) is not None, timeout=60, what="the daemon to serve")
        (root / "facts" / "hand.md").write_text("---\ndescription: A hand edit\n---\nBy hand.\n")
        seen = pause_again(proc, paused, seen)  # its main thread holds there now
        t0 = time.monotonic()
        r = run_cli("--vault", str(root), "remember", "late", "-d", "Written by the command in the end", env=env)
        assert r.returncode == 0, r.stderr
        assert time.monotonic() - t0 >= protocol.WRITE_START_WAIT_S
        assert commits_for(root, "late") == ["remember: late — Written by the command in the end"]
        (state / "resume-index-flush").write_text("")
        pause_again(proc, paused, seen)  # the write's events: every request queued before was answered
        assert done_by_daemon(proc, "remember", "late") == 0, daemon_log(proc)
        assert "did not start the write" not in r.stderr
        assert commits_for(root, "late") == ["remember: late — Written by the command in the end"]
    finally:
        proc.kill()
        proc.wait(timeout=30)


def pause_again(proc: subprocess.Popen, paused: Path, seen: tuple | None) -> tuple:
    """Wait for the daemon to pause (a new ``paused`` file, not the one ``seen``: inode, time)."""
    def which() -> tuple | None:
        try:
            st = paused.stat()
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns

    wait_for(lambda: proc.poll() is not None or which() not in (None, seen), timeout=60, what="the daemon to pause")
    assert proc.poll() is None, daemon_log(proc)
    return which()


#: what a write made in-process needs and a write the daemon makes must not import
IN_PROCESS_ONLY = ("vault_mem.vault.core", "vault_mem.vault.transaction", "vault_mem.index.sidecar",
                   "vault_mem.store.git", "vault_mem.store.workspace", "vault_mem.model.secrets",
                   "vault_mem.model.policy", "git", "yaml", "frontmatter", "sqlite3", "numpy")


def test_a_write_the_daemon_makes_imports_only_its_client(twins):
    """``python -X importtime -m vault_mem remember`` and ``forget`` with the daemon running import
    none of the vault, index, git, secret-gate, YAML or SQLite modules (the daemon made the
    write: its log says so); the same write with no daemon imports them (the list is real)."""
    a, b, proc = twins

    def imported(root: Path, *args: str, env: dict | None = None) -> set[str]:
        r = subprocess.run([sys.executable, "-X", "importtime", "-m", "vault_mem", "--vault", str(root), *args],
                           capture_output=True, text=True, timeout=120, check=False,
                           env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
        assert r.returncode == 0, r.stderr[-2000:]
        return {line.rpartition("|")[2].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}

    write = ["remember", "light", "-d", "A write with nothing heavy", "--body", "Just the socket."]
    for args in (write, ["forget", "light"]):
        mods = imported(a, *args)
        assert "vault_mem.store.daemon_socket" in mods
        assert not {m for m in mods if m in IN_PROCESS_ONLY or m.startswith(("numpy.", "yaml.", "git."))}, args
    assert done_by_daemon(proc, "remember", "light") == 1 and done_by_daemon(proc, "forget", "light") == 1
    heavy = imported(b, *write, env={protocol.USE_ENV: "off"})
    assert set(IN_PROCESS_ONLY) - {"numpy", "git"} <= heavy, set(IN_PROCESS_ONLY) - heavy


def test_a_command_interrupted_while_the_daemon_has_its_write_says_so_and_the_daemon_finishes_it(tmp_path):
    """Ctrl-C on a command whose write the daemon has started: the command exits 3 saying the
    daemon finishes it (not "interrupted", which read as "not done"); the daemon makes it, once."""
    root = new_vault(tmp_path / "v").root
    env = {"VAULT_MEM_PAUSE_AT": "before-write"}
    proc = start(root, **env)
    paused = root / ".vault-mem" / "paused-before-write"
    cmd = subprocess.Popen([sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", "ctrl-c",
                            "-d", "Interrupted by the person"],
                           env={**os.environ, "PYTHONPATH": str(ROOT), **env}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: paused.exists() or cmd.poll() is not None, timeout=60, what="the write to pause")
        assert paused.read_text() == str(proc.pid)
        cmd.send_signal(signal.SIGINT)
        _, err = cmd.communicate(timeout=60)
        assert cmd.returncode == 3, err
        assert "the daemon finishes it" in err and "not made again here" in err
        (root / ".vault-mem" / "resume-before-write").write_text("")
        wait_for(lambda: done_by_daemon(proc, "remember", "ctrl-c") == 1, timeout=60,
                 what="the daemon to finish the write")
        assert commits_for(root, "ctrl-c") == ["remember: ctrl-c — Interrupted by the person"]
    finally:
        if cmd.poll() is None:
            cmd.kill()
        # a daemon still paused (an assertion above failed) cannot stop: its SIGTERM would wait for
        # the pause, and stop()'s 30 s time-out would be all the failure said (seen once at load 20)
        if paused.exists():
            (root / ".vault-mem" / "resume-before-write").write_text("")
        stop(proc)


def test_reads_waiting_are_answered_before_writes_waiting(tmp_path):
    """The server's queue (a real socket, the real client functions): a write queued first and a
    read queued after it, both waiting for the main thread; the read is answered first, so a
    read waits for at most the write running. A write from another environment is answered at
    once, without a turn on the main thread."""
    import threading

    from vault_mem.daemon.serve import ReadServer

    vault = new_vault(tmp_path / "v")
    vault.take_notices()  # its creation's: said by init
    root = vault.root
    order: list[str] = []
    woken = threading.Semaphore(0)
    server = ReadServer(root, {"list": lambda vault, args: order.append("read") or []}, wake=woken.release,
                        writes={"remember": lambda who, args: (order.append("write") or {"ok": who["agent"]}, [], [])})
    assert server.start()
    try:
        answers: dict[str, object] = {}
        writer = threading.Thread(target=lambda: answers.update(
            write=protocol.submit(root, "remember", {}, protocol.writer("me"))))
        writer.start()
        assert woken.acquire(timeout=30)
        reader = threading.Thread(target=lambda: answers.update(read=protocol.ask(root, "list", {})))
        reader.start()
        assert woken.acquire(timeout=30)
        server.answer_pending(lambda: vault, lambda: None)
        writer.join(30)
        reader.join(30)
        assert order == ["read", "write"]
        assert answers == {"read": ([], []), "write": (protocol.ANSWERED, ({"ok": "me"}, [], []))}
        other = {**protocol.writer("me"), "umask": peers.own_umask() ^ 0o002}
        assert protocol.submit(root, "remember", {}, other)[0] == protocol.NOT_TAKEN
        assert order == ["read", "write"]
    finally:
        server.stop()
        vault.close()


def test_what_a_write_logs_in_the_daemon_reaches_the_commands_stderr(tmp_path):
    """A warning logged by the write on the daemon's main thread is printed by the command, as
    its own process prints a logged warning (the bare message); one logged meanwhile on another
    thread of the daemon is not the command's. A daemon in this process (same environment)."""
    import logging
    import threading

    from conftest import cli

    from vault_mem.adapters.writes import WRITES
    from vault_mem.daemon.process import Daemon

    root = new_vault(tmp_path / "v").root

    def remember(vault, args):
        logging.getLogger("vault_mem.index.dupes").warning("vault-mem: duplicate check skipped (by the test)")
        other = threading.Thread(target=lambda: logging.getLogger("vault_mem.daemon").warning("not the command's"))
        other.start()
        other.join()
        return WRITES["remember"](vault, args)

    # the daemon's own logging, as run_daemon sets it: its log, nothing through the root logger
    logger = logging.getLogger("vault_mem")
    own = logging.FileHandler(tmp_path / "daemon.log")
    logger.addHandler(own)
    logger.propagate = False
    daemon = Daemon(root, reads={}, writes={"remember": remember})
    ready, rc = threading.Event(), []
    thread = threading.Thread(target=lambda: rc.append(daemon.run(on_ready=ready.set)), daemon=True)
    thread.start()
    try:
        assert ready.wait(60), "the daemon did not start"
        r = cli("--vault", str(root), "remember", "logged", "-d", "A write that logs")
        assert r.returncode == 0, r.stderr
        assert r.stderr.splitlines().count("vault-mem: duplicate check skipped (by the test)") == 1, r.stderr
        assert "not the command's" not in r.stderr
        assert commits_for(root, "logged") == ["remember: logged — A write that logs"]
    finally:
        daemon.stop()
        thread.join(60)
        logger.removeHandler(own)
        logger.propagate = True
        own.close()
    assert rc == [0]
    assert "not the command's" in (tmp_path / "daemon.log").read_text()


def test_arguments_that_are_not_text_are_refused_as_without_a_daemon(twins):
    """A description or key holding bytes of no encoding (argv's surrogates) cannot travel as
    JSON: the command does the write itself and refuses it as without a daemon (same exit code
    and message), instead of failing on the socket."""
    a, b, proc = twins
    bad = os.fsdecode(b"caf\xe9 menu")
    ra = same_answer(a, b, ["remember", "menu", "-d", bad, "--json"])
    assert ra.returncode != 0 and "internal error" not in ra.stderr, ra.stderr
    assert done_by_daemon(proc, "remember", "menu") == 0
    assert commits_for(a, "menu") == []


def test_a_socket_that_reaches_another_vaults_daemon_never_writes_there(tmp_path):
    """``.vault-mem/daemon.sock`` of vault B a hard link to vault A's (a ``cp -al`` copy of A
    while its daemon ran; the folder then moved): a socket of this user's, reached through B's
    folder, whose daemon serves A. A write for B is made in B, by the command, once; A's daemon
    makes nothing and A gets no commit; a read of B is B's."""
    a, b = new_vault(tmp_path / "a").root, new_vault(tmp_path / "b").root
    proc = start(a)
    try:
        os.link(a / ".vault-mem" / protocol.SOCKET_FILE, b / ".vault-mem" / protocol.SOCKET_FILE)
        before = git(a, "rev-parse", "HEAD")
        r = run_cli("--vault", str(b), "remember", "mine", "-d", "Belongs to vault B", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["vault"] == str(b)
        assert commits_for(b, "mine") == ["remember: mine — Belongs to vault B"]
        assert git(a, "rev-parse", "HEAD") == before and not list(a.glob("*/mine.md"))
        assert done_by_daemon(proc, "remember", "mine") == 0, daemon_log(proc)
        r = run_cli("--vault", str(b), "forget", "mine")
        assert r.returncode == 0, r.stderr
        assert done_by_daemon(proc, "forget", "mine") == 0 and not list(b.glob("*/mine.md"))
        got = run_cli("--vault", str(b), "list", "--json")
        assert got.returncode == 0 and json.loads(got.stdout) == [], got.stdout
    finally:
        stop(proc)


#: a daemon's read server in a process of its own that stops while a write waits in its queue
#: and then exits at once, as the daemon's process does once its loop is over
_STOP_THEN_EXIT = """
import os, sys, threading
from pathlib import Path
from vault_mem.daemon.serve import ReadServer
queued = threading.Semaphore(0)
server = ReadServer(Path(sys.argv[1]), {}, wake=queued.release,
                    writes={"remember": lambda who, args: ({"made": True}, [], [])})
assert server.start()
print("serving", flush=True)
assert queued.acquire(timeout=60)
server.stop()
os._exit(0)
"""


def test_a_write_still_queued_when_the_daemon_stops_is_answered_not_taken_before_it_exits(tmp_path):
    """The daemon stopping while a write waits for its turn fails it in the queue, unstarted, so
    the command makes it itself. Before: the reply was left to the connection's thread, and a
    daemon that exited right after its stop never sent it: the command, having sent its write,
    said it "may or may not have been made" (exit 3) and did not make it. The stop now returns
    once every connection has its reply."""
    vault = new_vault(tmp_path / "v")
    vault.close()
    proc = subprocess.Popen([sys.executable, "-c", _STOP_THEN_EXIT, str(vault.root)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "serving"
        status, why = protocol.submit(vault.root, "remember", {}, protocol.writer(None))
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert status == protocol.NOT_TAKEN, why
    assert "stopping" in why


def test_a_write_while_a_persons_git_command_holds_the_index_is_made_by_the_command(tmp_path):
    """A person's git command under way (its `index.lock` held): the daemon hands the write back
    unstarted, so the wait for git happens in the command's own process and the daemon's main
    thread goes on answering reads (and putting back what a `stash pop` brought, which the
    person's next checkout needs). Before: the daemon made the write, waiting on its main thread
    until the lock went, and answered nothing meanwhile."""
    root = new_vault(tmp_path / "v").root
    proc = start(root)
    lock = root / ".git" / "index.lock"
    try:
        lock.write_text("")  # a person's git command, as git leaves its lock while it runs
        cmd = subprocess.Popen([sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", "waited",
                                "-d", "Written while git held the index"],
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: "waited" in daemon_log(proc) or cmd.poll() is not None, timeout=30,
                 what="the daemon to hand the write back")
        assert protocol.ask(root, "list", {}) is not None  # the daemon answers while the write waits
        lock.unlink()
        out, err = cmd.communicate(timeout=120)
        assert cmd.returncode == 0, err
        assert commits_for(root, "waited") == ["remember: waited — Written while git held the index"]
        assert done_by_daemon(proc, "remember", "waited") == 0, daemon_log(proc)
    finally:
        lock.unlink(missing_ok=True)
        stop(proc)
