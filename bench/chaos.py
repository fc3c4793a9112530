"""Chaos and fault run (issue 25): agents write while a person uses git, kills land at random
points, and the disk fills up or turns read-only; then every outcome is checked from git.

    python bench/chaos.py                      # 400 operations, a few minutes on 2 busy cores
    python bench/chaos.py --ops 600 --seed 7   # longer, another mix
    python bench/chaos.py --keep --dir /tmp/chaos-run   # keep the vault to look at afterwards

What runs at once, on one vault (a standalone repository with a real bare remote and a second
clone that pushes to it):

- agents: 2 CLI writers (``python -m vault_mem remember``, one process per write), one Python API
  process (``Vault.remember`` in a loop, fed over a pipe), one MCP server (``vault-mem mcp``,
  JSON-RPC ``tools/call remember`` over stdio); each write carries a unique token in its
  description and body;
- the daemon (``vault-mem daemon``, 1 s quiet period);
- a person: appends lines to hand-made memories, ``git add`` + ``git commit`` (through the
  installed hooks), ``git gc --prune=now``, ``git repack -ad``, ``git stash`` / ``git stash pop``,
  ``git pull --rebase --autostash`` after the second clone pushed, ``git checkout`` of another
  branch and back, ``vault-mem sync``, ``vault-mem undo``;
- kill -9 of a random agent process, the MCP server, the API process or the daemon (each
  restarted);
- a full disk and a read-only disk: the vault lives on a small tmpfs (needs root for ``mount``;
  without it these two faults are skipped and the run says so), filled to a few KB free for a
  moment, or remounted read-only while reads and writes go on.

At the end (daemon stopped, one ``vault-mem list`` to finish interrupted writes) it checks, and
prints each violation: every acknowledged write is in history with its content; no write
reported failed is in a branch's history (memory files or INDEX.md; one left on disk uncommitted
is counted); every line a person added
is on disk, in history or in a stash; ``git fsck`` is clean; no lock, owner record, journal or
temp file is left; no command waited over 5 s before saying anything on stderr; ``doctor``
passes and a new write lands; INDEX.md lists every section at 400 memories (a separate vault,
budgets 500 ... 20000). Exit 1 on any violation. Prints the figures and the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODE = HERE.parent
PY = sys.executable
TEMP_MARK = ".vault-mem-tmp-"
#: a command silent on stderr for longer than this counts as a wait without a message
SILENT_LIMIT_S = 5.0
#: a write's exit code when the daemon had it and was killed (vault_mem.errors.WriteOutcomeUnknownError)
UNKNOWN_EXIT = 3
SECTIONS = (("preference", "Preferences"), ("fact", "Facts"), ("decision", "Decisions"),
            ("procedure", "Procedures"))

API_PROGRAM = r"""
import json, sys
from vault_mem import Vault
from vault_mem.errors import VaultMemError
vault = Vault(sys.argv[1])
for line in sys.stdin:
    req = json.loads(line)
    try:
        vault.remember(req["key"], req["description"], req["body"], type=req["type"])
        out = {"ok": True}
    except VaultMemError as exc:
        out = {"ok": False, "error": str(exc)}
    except Exception as exc:  # the run reports these: an API caller must get a VaultMemError
        out = {"ok": False, "error": f"UNEXPECTED {type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


@dataclass
class Write:
    """One agent write and what its caller was told."""

    via: str
    key: str
    type: str
    token: str
    description: str
    body: str
    outcome: str = "running"  # ok | failed | killed
    message: str = ""
    seconds: float = 0.0
    silent: float = 0.0  # longest stretch without output on stderr (CLI), after start-up
    during: str = ""  # what the person was doing when it ended


@dataclass
class Run:
    """Everything the run did and saw."""

    root: Path
    env: dict[str, str]
    rnd: random.Random
    writes: list[Write] = field(default_factory=list)
    person_lines: list[tuple[str, str]] = field(default_factory=list)  # (file, line)
    events: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    fault: str = ""  # "full" or "ro" while a disk fault is on
    doing: str = ""  # the person's operation now (or the last one)
    counter: int = 0
    silent_sync: float = 0.0  # the longest wait without a word of a `sync` or `undo`
    in_a_row: dict[str, int] = field(default_factory=dict)  # the most refusals in a row, per git command

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.events[what] = self.events.get(what, 0) + n

    def note(self, text: str) -> None:
        with self.lock:
            self.notes.append(text)

    def token(self) -> str:
        with self.lock:
            self.counter += 1
            return f"tok{self.counter:05d}q{self.rnd.randrange(36 ** 4):04x}"


# -- processes -----------------------------------------------------------------------------------
class Timed:
    """A subprocess whose stderr is read as it comes, and whose state is sampled every 0.1 s,
    so the longest *wait* without a word is known: a stretch in which the process and its
    children all sleep (state S, not R or D) and nothing reaches stderr. A process that is
    merely slow (starved of CPU on a loaded machine: state R) is not waiting."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], stdin_data: str | None = None):
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin_data else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.err: list[bytes] = []
        self.out = b""
        self.silent = 0.0  # the longest wait without a word so far
        self._quiet_since: float | None = None
        self._reader = threading.Thread(target=self._read_err, daemon=True)
        self._reader.start()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()
        if stdin_data:
            self.proc.stdin.write(stdin_data.encode())
            self.proc.stdin.close()

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.err.append(line)
            self._quiet_since = None  # it said something: a new stretch starts

    def _sample(self) -> None:
        while self.proc.poll() is None:
            now = time.monotonic()
            if _busy(self.proc.pid):
                self._quiet_since = None
            elif self._quiet_since is None:
                self._quiet_since = now
            else:
                self.silent = max(self.silent, now - self._quiet_since)
            time.sleep(0.1)

    def wait(self, timeout: float = 180) -> tuple[int, str, str, float, float]:
        """(returncode, stdout, stderr, seconds, longest wait without a word)."""
        try:
            self.out = self.proc.stdout.read()
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self._reader.join(5)
        self._sampler.join(5)
        return (rc, self.out.decode("utf-8", "replace"), b"".join(self.err).decode("utf-8", "replace"),
                time.monotonic() - self.start, self.silent)


def _busy(pid: int) -> bool:
    """Whether ``pid`` or one of its children (and theirs) is running or in disk I/O."""
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{p}/task/{p}/children", "rb") as fh:
                todo += [int(c) for c in fh.read().split()]
        except (OSError, IndexError, ValueError):
            continue
        if state in (b"R", b"D"):
            return True
    return False


def vm(run: Run, *args: str, cwd: Path | None = None) -> tuple[int, str, str, float, float]:
    """``vault-mem ARGS`` as a real process, timed."""
    return Timed([PY, "-m", "vault_mem", *args], cwd or run.root, run.env).wait()


def git(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = False,
        timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr}")
    return proc


# -- agents --------------------------------------------------------------------------------------
def new_write(run: Run, via: str, keys: list[str]) -> Write:
    tok = run.token()
    key = run.rnd.choice(keys)
    type_ = {"p": "preference", "d": "decision", "r": "procedure"}.get(key[0], "fact")
    desc = f"Chaos note {tok} about the staging server and its nightly backup window"
    body = f"Body of {tok}.\nSecond line {tok} with some words to index.\n"
    w = Write(via, key, type_, tok, desc, body)
    with run.lock:
        run.writes.append(w)
    return w


def judge(run: Run, w: Write, ok: bool, message: str) -> None:
    w.outcome = "ok" if ok else "failed"
    w.during = run.doing + (f", disk {run.fault}" if run.fault else "")
    w.message = message.strip()[-300:]
    if "internal error" in message.lower() or "Traceback" in message or "UNEXPECTED" in message:
        run.violations.append(f"{w.via} write {w.token} of {w.key}: an internal error, not a reason: {w.message}")


def cli_agent(run: Run, n: int, live: dict[int, str]) -> None:
    keys = [f"{c}cli{n}-{i}" for c in "fpdr" for i in range(3)] + ["fshared-0", "fshared-1"]
    while not run.stop.is_set():
        w = new_write(run, "cli", keys)
        t = Timed([PY, "-m", "vault_mem", "remember", w.key, "-t", w.type, "-d", w.description, "--body", w.body],
                  run.root, run.env)
        live[t.proc.pid] = "cli writer"
        rc, _, err, w.seconds, w.silent = t.wait()
        live.pop(t.proc.pid, None)
        if rc == -signal.SIGKILL or rc == UNKNOWN_EXIT:
            # killed, or its write made by the daemon, killed meanwhile: it may or may not have landed
            w.outcome = "killed"
        else:
            judge(run, w, rc == 0, err)
        run.stop.wait(run.rnd.uniform(0.2, 1.0))


class Served:
    """A long-lived agent process (the API loop or the MCP server), restarted when killed."""

    def __init__(self, run: Run, kind: str, live: dict[int, str]):
        self.run, self.kind, self.live = run, kind, live
        self.proc: subprocess.Popen | None = None
        self.ids = 0

    def start(self) -> None:
        argv = [PY, "-c", API_PROGRAM, str(self.run.root)] if self.kind == "api" else \
            [PY, "-m", "vault_mem", "mcp", "--vault", str(self.run.root)]
        self.proc = subprocess.Popen(argv, cwd=self.run.root, env=self.run.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.live[self.proc.pid] = self.kind
        if self.kind == "mcp":
            self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "chaos", "version": "1"}}})
            self.answer()
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def answer(self) -> dict | None:
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def write(self, w: Write) -> None:
        try:
            if self.proc is None or self.proc.poll() is not None:
                if self.proc is not None:
                    self.live.pop(self.proc.pid, None)
                self.start()
            start = time.monotonic()
            if self.kind == "api":
                self.send({"key": w.key, "description": w.description, "body": w.body, "type": w.type})
                got = self.answer()
                w.seconds = time.monotonic() - start
                if got is None:
                    w.outcome = "killed"
                else:
                    judge(self.run, w, got["ok"], got.get("error", ""))
            else:
                self.ids += 1
                self.send({"jsonrpc": "2.0", "id": self.ids, "method": "tools/call", "params": {
                    "name": "remember", "arguments": {"key": w.key, "description": w.description,
                                                      "body": w.body, "type": w.type}}})
                got = self.answer()
                while got is not None and got.get("id") != self.ids:
                    got = self.answer()  # a notification
                w.seconds = time.monotonic() - start
                if got is None:
                    w.outcome = "killed"
                else:
                    res = got.get("result") or {}
                    text = " ".join(c.get("text", "") for c in res.get("content", []))
                    judge(self.run, w, "result" in got and not res.get("isError"), text or json.dumps(got)[:300])
        except (BrokenPipeError, ValueError, OSError):
            w.outcome = "killed"

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def served_agent(run: Run, kind: str, live: dict[int, str]) -> None:
    keys = [f"{c}{kind}-{i}" for c in "fpdr" for i in range(3)] + ["fshared-0", "fshared-1"]
    agent = Served(run, kind, live)
    try:
        while not run.stop.is_set():
            agent.write(new_write(run, kind, keys))
            run.stop.wait(run.rnd.uniform(0.2, 1.0))
    finally:
        agent.close()


class Daemon:
    """``vault-mem daemon`` with a short quiet period, restarted after a kill."""

    def __init__(self, run: Run, log: Path):
        self.run, self.log, self.proc = run, log, None

    def start(self) -> None:
        env = {**self.run.env, "VAULT_MEM_QUIET_SECONDS": "1", "VAULT_MEM_DEBOUNCE_MS": "50"}
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen([PY, "-m", "vault_mem", "daemon", str(self.run.root)], env=env,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def ensure(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.run.violations.append("the daemon did not stop within 60 s of SIGTERM")
                self.proc.kill()
                self.proc.wait()


# -- the person ----------------------------------------------------------------------------------
PERSON_FILES = [f"facts/person-notes-{i}.md" for i in range(3)]


def person_file_text(i: int) -> str:
    return (f"---\ndescription: The person's own notes, file {i}, edited by hand\ncreated: 2026-01-05\n"
            f"updated: 2026-01-05\n---\n\nNotes kept by hand.\n")


def person_edit(run: Run) -> None:
    rel = run.rnd.choice(PERSON_FILES)
    line = f"- line {run.token()} added by hand"
    path = run.root / rel
    try:
        text = path.read_text() if path.exists() else person_file_text(PERSON_FILES.index(rel))
        path.write_text(text + line + "\n")
    except OSError as exc:
        run.count(f"person edit refused by the disk ({exc.strerror})")
        return
    with run.lock:
        run.person_lines.append((rel, line))
    run.count("person edits")


def retried(run: Run, what: str, argv: list[str], tries: int = 5) -> subprocess.CompletedProcess:
    """A git command as a person runs it: retried (up to ``tries``) when git refuses to start."""
    for attempt in range(tries):
        proc = git(run.root, *argv, env=run.env)
        with run.lock:
            name = what.removeprefix("git ").split(" -")[0]  # "checkout side": "checkout"
            name = "checkout" if name.startswith("checkout ") else name
            run.in_a_row[name] = max(run.in_a_row.get(name, 0), attempt + (proc.returncode != 0))
        if proc.returncode == 0:
            if attempt:
                run.count(f"{what}: went through after {attempt} refusal(s)")
            return proc
        mine = "would be overwritten" in proc.stderr and all(
            f in PERSON_FILES for f in re.findall(r"^\t(\S+)$", proc.stderr, re.MULTILINE))
        run.count(f"{what}: refused once" + (" (for the person's own edits)" if mine else ""))
        if attempt == 0 or not mine:
            run.note(f"{what} refused: {proc.stderr.strip()[:200]}")
        time.sleep(0.4)
    return proc


def in_progress(root: Path) -> str | None:
    for name in ("rebase-merge", "rebase-apply", "MERGE_HEAD"):
        if (root / ".git" / name).exists():
            return name
    return None


def person_op(run: Run, op: str, peer: Path, acked_keys: list[str]) -> None:
    root = run.root
    run.count(f"person: {op}")
    run.doing = op
    if op == "edit":
        person_edit(run)
    elif op == "commit":
        if not git(root, "status", "--porcelain", "--", *PERSON_FILES, env=run.env).stdout.strip():
            return
        retried(run, "git add", ["add", "--", *PERSON_FILES])
        proc = retried(run, "git commit", ["commit", "-q", "-m", "person: my notes", "--", *PERSON_FILES])
        if proc.returncode != 0 and "nothing" not in proc.stdout + proc.stderr:
            run.note(f"git commit failed 5 times: {proc.stderr.strip()[:300]}")
    elif op == "gc":
        git(root, "gc", "-q", "--prune=now", env=run.env)
    elif op == "repack":
        git(root, "repack", "-adq", env=run.env)
    elif op == "stash":
        person_edit(run)  # something of the person's to stash
        before = len(git(root, "stash", "list", env=run.env).stdout.splitlines())
        s = git(root, "stash", env=run.env)
        time.sleep(run.rnd.uniform(0.05, 0.5))
        if s.returncode != 0:
            run.note(f"git stash failed: {s.stderr.strip()[:200]}")
        if len(git(root, "stash", "list", env=run.env).stdout.splitlines()) > before:
            pop = retried(run, "git stash pop", ["stash", "pop", "-q"])
            if pop.returncode != 0:
                run.count("git stash pop: failed (stash kept)")
                run.note(f"stash pop failed: {pop.stderr.strip()[:300]} {pop.stdout.strip()[:200]}")
                resolve_pop(run)
    elif op == "pull":
        n = run.token()
        (peer / "facts").mkdir(exist_ok=True)
        (peer / f"facts/peer-{n}.md").write_text(
            f"---\ndescription: A peer's memory {n}\ncreated: 2026-01-05\nupdated: 2026-01-05\n---\n\npeer body\n")
        git(peer, "add", "-A", env=run.env)
        git(peer, "commit", "-qm", f"peer {n}", "--no-verify", env=run.env)
        git(peer, "pull", "-q", "--rebase", env=run.env)
        git(peer, "push", "-q", env=run.env)
        pull = retried(run, "git pull --rebase --autostash", ["pull", "-q", "--rebase", "--autostash"], tries=3)
        left = in_progress(root)
        if left:
            run.violations.append(f"git pull --rebase --autostash left {left}: {pull.stderr.strip()[:300]}")
            git(root, "rebase", "--abort", env=run.env)
            if in_progress(root):
                run.violations.append("the rebase could not be aborted")
        elif pull.returncode != 0:
            run.count("git pull: failed cleanly")
            run.note(f"pull failed cleanly: {pull.stderr.strip()[:200]}")
        if "stash" in (pull.stdout + pull.stderr).lower() and "conflict" in (pull.stdout + pull.stderr).lower():
            run.count("autostash apply conflicted (stash kept)")
            resolve_pop(run)
    elif op == "checkout":
        person_op(run, "commit", peer, acked_keys)  # a person commits their own edits first
        for target in ("side", "main"):
            co = retried(run, f"git checkout {target}", ["checkout", "-q", target], tries=8)
            if co.returncode != 0:
                run.note(f"git checkout {target} refused 8 times: {co.stderr.strip()[:300]}")
                if target == "main":
                    run.violations.append(f"could not get back to main: {co.stderr.strip()[:300]}")
    elif op == "sync":
        rc, out, err, secs, silent = vm(run, "sync")
        run.count("vault-mem sync ok" if rc == 0 else "vault-mem sync refused")
        if rc != 0:
            run.note(f"sync rc {rc}: {err.strip()[:200]}")
        check_silence(run, f"sync (the disk: {run.fault or 'fine'})", secs, silent)
        if "internal error" in err.lower() or "Traceback" in err:
            run.violations.append(f"sync: {err.strip()[-300:]}")
    elif op == "undo" and acked_keys:
        key = run.rnd.choice(acked_keys)
        rc, out, err, secs, silent = vm(run, "undo", key)
        run.count("vault-mem undo ok" if rc == 0 else "vault-mem undo refused")
        check_silence(run, "undo", secs, silent)
        if "internal error" in err.lower() or "Traceback" in err:
            run.violations.append(f"undo: {err.strip()[-300:]}")


def resolve_pop(run: Run) -> None:
    """A pop (or autostash) that conflicted: git kept the stash; the person takes their own
    files from it, leaves the agents' as committed, and drops the stash only when nothing of
    theirs is lost."""
    root = run.root
    status = git(root, "status", "--porcelain", env=run.env).stdout
    conflicted = [line[3:] for line in status.splitlines() if line[:2] in ("UU", "AA", "DU", "UD")]
    for path in conflicted:
        if path in PERSON_FILES:
            git(root, "checkout", "stash@{0}", "--", path, env=run.env)
        else:
            git(root, "checkout", "HEAD", "--", path, env=run.env)
    git(root, "reset", "-q", env=run.env)
    for rel in PERSON_FILES:  # the stash's version of each of the person's files, where newer
        stashed = git(root, "show", f"stash@{{0}}:{rel}", env=run.env)
        if stashed.returncode == 0 and (root / rel).exists() and \
                len(stashed.stdout) > len((root / rel).read_text()):
            (root / rel).write_text(stashed.stdout)
    run.note(f"resolved a conflicted pop by hand: {', '.join(conflicted) or 'no conflict markers'}")


def check_silence(run: Run, what: str, seconds: float, silent: float) -> None:
    with run.lock:
        run.silent_sync = max(run.silent_sync, silent)
    if silent > SILENT_LIMIT_S:
        run.violations.append(f"{what} was silent for {silent:.1f} s (of {seconds:.1f} s)")


# -- disk faults ---------------------------------------------------------------------------------
def full_disk(run: Run, mnt: Path, hold: float) -> None:
    filler = mnt / "filler"
    try:
        with open(filler, "wb") as fh:
            st = os.statvfs(mnt)
            fh.write(b"\0" * max(0, st.f_bavail * st.f_frsize - 4096))
    except OSError:
        pass
    run.fault = "full"
    run.count("full-disk windows")
    rc, out, err, *_ = vm(run, "recall", "staging server")
    if rc != 0:
        run.violations.append(f"recall on a full disk failed: {err.strip()[-200:]}")
    time.sleep(hold)
    filler.unlink()
    run.fault = ""


def read_only_disk(run: Run, mnt: Path, hold: float, live: dict[int, str], daemon: Daemon) -> None:
    # a mount goes read-only only while no process has a file on it open for writing (EBUSY):
    # the long-lived ones (daemon, API, MCP: their index.db) are killed -9 first, as a crash
    # would, and come back on the read-only disk; CLI writers in flight are waited out
    for attempt in range(40):
        proc = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        if proc.returncode == 0:
            break
        if attempt == 0:
            for pid, what in [*list(live.items()), *([(daemon.proc.pid, "daemon")] if daemon.proc else [])]:
                if what != "cli writer":
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                        run.count(f"kill -9: {what} (for the read-only remount)")
        time.sleep(0.05)
    else:
        run.note(f"remount ro refused: {proc.stderr.strip()}")
        return
    daemon.ensure()
    run.fault = "ro"
    run.count("read-only windows")
    try:
        for args in (("recall", "staging server"), ("list",), ("get", "person-notes-0")):
            rc, out, err, *_ = vm(run, *args)
            if rc != 0 and not ("not found" in err.lower() or "no memory" in err.lower()):
                run.violations.append(f"`{' '.join(args)}` on a read-only disk failed: {err.strip()[-200:]}")
        time.sleep(hold)
    finally:
        for _ in range(50):  # busy while a process writes? retry
            if subprocess.run(["mount", "-o", "remount,rw", str(mnt)], capture_output=True).returncode == 0:
                break
            time.sleep(0.2)
        run.fault = ""


# -- the run -------------------------------------------------------------------------------------
def setup(work: Path, use_tmpfs: bool) -> tuple[Path, Path, Path | None, dict[str, str]]:
    home = work / "home"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Chaos Person\n"
                                     "\temail = person@example.com\n[gc]\n\tauto = 0\n")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(work / "xdg"), "GIT_CONFIG_NOSYSTEM": "1",
           "VAULT_MEM_EMBEDDER": "none", "PYTHONPATH": str(CODE)}
    for name in ("VAULT_MEM_VAULT", "VAULT_MEM_AGENT", "VAULT_MEM_PAUSE_AT", "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(name, None)
    mnt = None
    if use_tmpfs:
        mnt = work / "disk"
        mnt.mkdir()
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mnt)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"note: cannot mount a tmpfs ({proc.stderr.strip()}): full and read-only disk faults "
                  "are skipped (run as root for them)", file=sys.stderr)
            mnt = None
    root = (mnt or work) / "vault"
    remote = work / "remote.git"
    git(work, "init", "-q", "--bare", str(remote), check=True, env=env)
    rc = subprocess.run([PY, "-m", "vault_mem", "init", str(root)], env=env, capture_output=True, text=True)
    if rc.returncode != 0:
        raise SystemExit(f"vault-mem init failed: {rc.stderr}")
    for i, rel in enumerate(PERSON_FILES):
        (root / rel).write_text(person_file_text(i))
    git(root, "add", "--", *PERSON_FILES, env=env, check=True)
    git(root, "commit", "-qm", "person: my notes", env=env, check=True)
    git(root, "remote", "add", "origin", str(remote), env=env, check=True)
    git(root, "push", "-q", "-u", "origin", "main", env=env, check=True)
    git(root, "branch", "side", env=env, check=True)
    peer = work / "peer"
    git(work, "clone", "-q", str(remote), str(peer), env=env, check=True)
    return root, peer, mnt, env


def chaos(run: Run, peer: Path, mnt: Path | None, ops: int, daemon: Daemon, log: Path,
          only: str | None = None, rounds: int = 0) -> None:
    """The mixed run; with ``only``, the person does ``rounds`` of that one operation (an edit
    between them) while the agents write, with no kill and no disk fault: a focused run."""
    live: dict[int, str] = {}
    threads = [threading.Thread(target=cli_agent, args=(run, n, live)) for n in range(2)]
    threads += [threading.Thread(target=served_agent, args=(run, kind, live)) for kind in ("api", "mcp")]
    daemon.start()
    for t in threads:
        t.start()
    person = ["edit"] * 5 + ["commit"] * 2 + ["stash"] * 3 + ["gc", "repack", "pull", "checkout", "sync", "undo"]
    person_ops = 0
    try:
        while True:
            with run.lock:
                done = sum(1 for w in run.writes if w.outcome != "running")
            if (person_ops >= rounds) if only else (done + person_ops >= ops):
                break
            if only:
                person_op(run, "edit", peer, [])
                with run.lock:
                    acked = sorted({w.key for w in run.writes if w.outcome == "ok"})
                for op in only.split("+"):  # stash+checkout: a pop, then a checkout at once
                    person_op(run, op, peer, acked)
                person_ops += 1
                daemon.ensure()
                time.sleep(run.rnd.uniform(0.3, 1.0))
                continue
            roll = run.rnd.random()
            if roll < 0.12:
                # kill -9 a random process of ours, at a random moment
                choices = list(live.items()) + ([(daemon.proc.pid, "daemon")] if daemon.proc else [])
                if choices:
                    pid, what = run.rnd.choice(choices)
                    time.sleep(run.rnd.uniform(0, 0.3))
                    try:
                        os.kill(pid, signal.SIGKILL)
                        run.count(f"kill -9: {what}")
                    except ProcessLookupError:
                        pass
                    if what == "daemon":
                        time.sleep(0.5)
                        daemon.ensure()
            elif roll < 0.17 and mnt is not None:
                if run.rnd.random() < 0.5:
                    full_disk(run, mnt, run.rnd.uniform(0.5, 2.0))
                else:
                    read_only_disk(run, mnt, run.rnd.uniform(0.5, 2.0), live, daemon)
            else:
                with run.lock:
                    acked = sorted({w.key for w in run.writes if w.outcome == "ok"})
                person_op(run, run.rnd.choice(person), peer, acked)
                person_ops += 1
            daemon.ensure()
            time.sleep(run.rnd.uniform(0.1, 0.6))
    finally:
        run.stop.set()
        for t in threads:
            t.join()
        if mnt is not None:
            subprocess.run(["mount", "-o", "remount,rw", str(mnt)], capture_output=True)
            (mnt / "filler").unlink(missing_ok=True)
        daemon.stop()


# -- the checks ----------------------------------------------------------------------------------
def history_blobs(root: Path, *, stashes: bool) -> tuple[dict[str, str], list[str]]:
    """({blob text: path} of every memory-file blob reachable from a branch (and, with
    ``stashes``, from the person's stash entries), [every INDEX.md blob text])."""
    revs = ["--branches", "--remotes"]
    if stashes:
        revs += git(root, "stash", "list", "--format=%H").stdout.split()
    listing = git(root, "rev-list", "--objects", *revs).stdout
    wanted = {}
    for line in listing.splitlines():
        oid, _, path = line.partition(" ")
        if path.endswith(".md"):
            wanted.setdefault(oid, path)
    proc = subprocess.run(["git", "cat-file", "--batch"], cwd=root, input="\n".join(wanted).encode() + b"\n",
                          capture_output=True)
    data, pos = proc.stdout, 0
    texts: dict[str, str] = {}
    index_texts: list[str] = []
    for oid, path in wanted.items():
        header_end = data.index(b"\n", pos)
        size = int(data[pos:header_end].split()[2])
        text = data[header_end + 1:header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
        if path.endswith("INDEX.md"):
            index_texts.append(text)
        else:
            texts[text] = path
    return texts, index_texts


def check(run: Run, daemon_log: Path) -> None:
    root = run.root
    rc, out, err, *_ = vm(run, "list")
    if rc != 0:
        run.violations.append(f"`vault-mem list` after the run failed: {err.strip()[-300:]}")
    texts, index_texts = history_blobs(root, stashes=False)  # what was committed
    memory_text = "\n".join(texts)
    index_text = "\n".join(index_texts)
    kept_text = "\n".join(history_blobs(root, stashes=True)[0])  # a person's stash keeps too
    disk_files = {str(p.relative_to(root)): p.read_text(errors="replace")
                  for p in root.rglob("*.md") if ".git" not in p.parts}
    for w in run.writes:
        if w.outcome == "ok":
            if not any(w.token in t and w.body in t and w.description in t for t in texts):
                run.violations.append(f"acknowledged {w.via} write {w.token} of {w.key} is not in history")
        elif w.outcome == "failed":
            where = [name for name, text in (("a memory file in history", memory_text),
                                             ("an INDEX.md in history", index_text)) if w.token in text]
            if where:
                run.violations.append(f"{w.via} write {w.token} of {w.key} reported failed "
                                      f"({w.message[:120]}) is in {', '.join(where)}")
            on_disk = [rel for rel, text in disk_files.items() if w.token in text]
            if on_disk:  # not committed: the daemon puts HEAD's version back, never commits it
                run.count("failed writes whose bytes are on disk at the end (uncommitted)")
                run.note(f"{w.via} write {w.token} reported failed: its bytes are in {', '.join(on_disk)} "
                         "on disk, uncommitted")
    older_versions(run)
    peer_lines_by_agents(run)
    for rel, line in run.person_lines:
        on_disk = (root / rel).exists() and line in (root / rel).read_text(errors="replace")
        if not on_disk and line not in kept_text:
            run.violations.append(f"the person's line {line!r} of {rel} is lost")
    fsck = git(root, "fsck", "--no-progress", "--no-dangling")
    if fsck.returncode != 0 or fsck.stdout.strip() or "error" in fsck.stderr:
        run.violations.append(f"git fsck: {(fsck.stdout + fsck.stderr).strip()[:500]}")
    gitdir = root / ".git"
    leftovers = [str(p.relative_to(root)) for p in gitdir.rglob("*.lock")]
    leftovers += [str(p.relative_to(root)) for p in gitdir.glob("vault-mem-*")]  # a fetch's quarantine too
    leftovers += [str(p.relative_to(root)) for p in (gitdir / "objects" / "pack").glob("*.keep")]
    leftovers += [str(p.relative_to(root)) for p in root.rglob(f"*{TEMP_MARK}*") if ".git" not in p.parts]
    leftovers += [f".vault-mem/{n}" for n in ("pending.json", "pending.failed.json", "sync.json")
                  if (root / ".vault-mem" / n).exists()]
    if leftovers:
        run.violations.append(f"left behind: {', '.join(sorted(leftovers))}")
    for w in run.writes:
        if w.silent > SILENT_LIMIT_S:
            run.violations.append(f"{w.via} write {w.token} was silent for {w.silent:.1f} s (of {w.seconds:.1f} s; "
                                  f"the person: {w.during})")
    if in_progress(root):
        run.violations.append(f"a git operation is left in progress: {in_progress(root)}")
    branch = git(root, "symbolic-ref", "-q", "HEAD").stdout.strip()
    if branch != "refs/heads/main":
        run.violations.append(f"HEAD ends on {branch or 'a detached HEAD'}, not main")
    rc, out, err, *_ = vm(run, "doctor")
    if rc != 0:
        run.violations.append(f"doctor after the run: {(out + err).strip()[-600:]}")
    rc, out, err, *_ = vm(run, "remember", "after-the-run", "-d", "Writes still land after the run", "--body", "x")
    if rc != 0:
        run.violations.append(f"a write after the run failed: {err.strip()[-300:]}")
    log = daemon_log.read_text(errors="replace") if daemon_log.exists() else ""
    if "Traceback" in log:
        tb = log[log.index("Traceback"):]
        end = re.search(r"^\S.*$", tb[10:], re.MULTILINE)  # the exception's own line ends it
        tb = tb[:10 + end.end()] if end else tb[:3000]
        run.violations.append("the daemon's log holds a traceback: " + (tb if len(tb) < 1500 else tb[:500] + " ... " + tb[-900:]))
    status = git(root, "status", "--porcelain").stdout
    stray = [line for line in status.splitlines() if not any(line.endswith(p) for p in PERSON_FILES)]
    if stray:
        run.note(f"git status after the run (besides the person's files): {stray[:8]}")
    stashes = git(root, "stash", "list").stdout.splitlines()
    if stashes:
        run.note(f"{len(stashes)} stash entries left (conflicted pops the person kept)")


def older_versions(run: Run) -> None:
    """No commit that is not an agent's (the daemon's, in the person's name) sets an agent's
    memory file back to a version that file had before (issue 25 item 2: a ``git stash`` taken
    while a write landed put the older bytes back on disk, and the daemon committed them)."""
    root = run.root
    log = git(root, "log", "--reverse", "--format=%x01%H%x00%B", "--name-only", "main").stdout
    seen: dict[str, list[str]] = {}
    for entry in log.split("\x01")[1:]:
        commit, _, rest = entry.partition("\x00")
        agent = "\nMemory-Key: " in rest
        paths = [p for p in rest.splitlines() if p.endswith(".md") and p != "INDEX.md" and "/" in p]
        for path in paths:
            if path in PERSON_FILES:
                continue
            blob = git(root, "rev-parse", "-q", "--verify", f"{commit}:{path}").stdout.strip()
            earlier = seen.setdefault(path, [])
            if blob and not agent and blob in earlier[:-1]:
                run.violations.append(f"commit {commit[:10]} (not an agent's) set {path} back to an "
                                      f"older version ({len(earlier) - earlier.index(blob) - 1} versions back)")
            if blob:
                earlier.append(blob)


def peer_lines_by_agents(run: Run) -> None:
    """No agent commit is the first on main to list a peer's memory in INDEX.md: the peer
    commits without vault-mem's hooks, and the catching up after the person's pull is committed
    in the person's name (issue 25: "repair it in the person's name, not the agent's"); an
    agent commit that carried it credited the agent with the person's pull. A rebase replays
    an agent commit's INDEX.md as a diff, which never adds the peer's line by itself."""
    log = git(run.root, "log", "--reverse", "-p", "--format=%x01%H%x00%B%x00", "main", "--", "INDEX.md").stdout
    listed: set[str] = set()
    for entry in log.split("\x01")[1:]:
        commit, _, rest = entry.partition("\x00")
        message, _, diff = rest.partition("\x00")
        added = set(re.findall(r"^\+- (peer-[a-z0-9-]+) ", diff, re.MULTILINE)) - listed
        listed |= added
        if added and "\nMemory-Key: " in message:
            run.violations.append(f"agent commit {commit[:10]} is the first to list the peer's "
                                  f"{', '.join(sorted(added))} in INDEX.md (the person's pull left it stale)")
        elif added:
            run.count("peer memories first listed by a commit in the person's name")


def index_at_400(work: Path, env: dict[str, str]) -> list[str]:
    """INDEX.md and the session-start context of a 400-memory vault list every section, at
    several budgets. Returns the violations."""
    root = work / "big"
    program = r"""
import random, sys
from vault_mem import Vault
from vault_mem.model.memory import Memory, rel_path_for, render_memory
import datetime as dt
words = ["deploy", "staging", "server", "config", "editor", "cache", "build", "release", "team", "review",
         "branch", "database", "schema", "migration", "backup", "monitor", "alert", "python", "docker", "nightly"]
rnd = random.Random(25)
root = sys.argv[1]
Vault.init(root).close()
import pathlib
for t in ("preference", "fact", "decision", "procedure"):
    for i in range(100):
        d = ""
        while len(d) < 78:
            d += rnd.choice(words) + " "
        key = f"{t}-{i:03d}"
        p = pathlib.Path(root) / rel_path_for(key, t)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(render_memory(Memory(key=key, type=t, meta={"description": d.strip().capitalize()[:82],
            "created": dt.date(2026, 1, 5), "updated": dt.date(2026, 1, 5)}, body="A body.\n")))
"""
    subprocess.run([PY, "-c", program, str(root)], env=env, check=True, capture_output=True)
    bad: list[str] = []
    for budget in (500, 2000, 8000, 20000):
        toml = root / "vault.toml"
        toml.write_text(re.sub(r"budget_tokens = \d+", f"budget_tokens = {budget}", toml.read_text()))
        subprocess.run([PY, "-m", "vault_mem", "index", "--write"], cwd=root, env=env, capture_output=True)
        context, err = session_context(root, env)
        if context is None:
            context = ""
            bad.append(f"budget {budget}: the session-start hook gave no context ({err})")
        for name, text in (("INDEX.md", (root / "INDEX.md").read_text()), ("session context", context)):
            for _, title in SECTIONS:
                lines, more = section_listing(text, title)
                if lines == 0 or lines + more != 100:
                    bad.append(f"budget {budget}: {name} lists {lines} of {title}{f' +{more} more' if more else ''}")
    return bad


def session_context(root: Path, env: dict[str, str]) -> tuple[str | None, str]:
    """(the context the session-start hook gives an agent in ``root``, None when it gave none;
    the end of its stderr)."""
    hook = subprocess.run([PY, "-m", "vault_mem", "hook", "session-start", "--vault", str(root)], cwd=root,
                          env=env, capture_output=True, text=True,
                          input=json.dumps({"hook_event_name": "SessionStart", "cwd": str(root)}))
    try:
        return json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"], hook.stderr.strip()[-200:]
    except (ValueError, KeyError):
        return None, hook.stderr.strip()[-200:]


def section_listing(text: str, title: str) -> tuple[int, int]:
    """(lines listed, N of its "+N more") under ``## title`` in an INDEX.md or a session context."""
    part = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0] if f"## {title}\n" in text else ""
    more = re.search(r"^\+(\d+) more", part, re.MULTILINE)
    return sum(1 for line in part.splitlines() if line.startswith("- ")), int(more.group(1)) if more else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=400, help="agent writes + person operations (default 400)")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--dir", type=Path, help="work folder (default: a new temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--no-disk-faults", action="store_true", help="no tmpfs: skip the full and read-only disk")
    ap.add_argument("--only", choices=("pull", "stash", "checkout", "gc", "repack", "commit", "sync", "undo",
                                       "stash+checkout"),
                    help="a focused run: the person does only this (after an edit each time), no kill, "
                         "no disk fault, for --rounds rounds (stash+checkout: a stash and its pop, "
                         "then a checkout of the other branch and back)")
    ap.add_argument("--rounds", type=int, default=30, help="rounds of --only (default 30)")
    args = ap.parse_args(argv)
    if args.only:
        args.no_disk_faults = True
    work = Path(tempfile.mkdtemp(prefix="vault-mem-chaos-", dir=args.dir))
    load0 = os.getloadavg()
    t0 = time.monotonic()
    root, peer, mnt, env = setup(work, not args.no_disk_faults)
    run = Run(root=root, env=env, rnd=random.Random(args.seed))
    log = work / "daemon.log"
    daemon = Daemon(run, log)
    try:
        chaos(run, peer, mnt, args.ops, daemon, log, args.only, args.rounds)
        chaos_s = time.monotonic() - t0
        check(run, log)
        if not args.only:
            run.violations += index_at_400(work, env)
    finally:
        daemon.stop()
        wall = time.monotonic() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if args.keep:
            print(f"kept: {work}")
        else:
            if mnt is not None:
                subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
            shutil.rmtree(work, ignore_errors=True)
    report(run, args, chaos_s, wall, usage, load0, mnt is not None)
    return 1 if run.violations else 0


def report(run: Run, args, chaos_s: float, wall: float, usage, load0, disk_faults: bool) -> None:
    by: dict[str, dict[str, int]] = {}
    for w in run.writes:
        by.setdefault(w.via, {}).setdefault(w.outcome, 0)
        by[w.via][w.outcome] += 1
    slow = sorted((w.seconds for w in run.writes if w.outcome != "killed"), reverse=True)
    what = f"--only {args.only} --rounds {args.rounds}" if args.only else f"--ops {args.ops}"
    print(f"chaos run: {what} --seed {args.seed}; disk faults {'on (tmpfs)' if disk_faults else 'OFF'}")
    print(f"wall {wall:.0f} s (chaos phase {chaos_s:.0f} s); children CPU {usage.ru_utime:.0f} s user + "
          f"{usage.ru_stime:.0f} s system; load average before {load0[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    total = {k: sum(v.get(k, 0) for v in by.values()) for k in ("ok", "failed", "killed")}
    print(f"agent writes: {len(run.writes)} ({total['ok']} acknowledged, {total['failed']} reported failed, "
          f"{total['killed']} killed mid-write)")
    for via, counts in sorted(by.items()):
        print(f"  {via}: {counts}")
    if slow:
        print(f"  slowest writes: {', '.join(f'{s:.1f}' for s in slow[:5])} s")
    quiet = max((w.silent for w in run.writes if w.via == "cli"), default=0.0)
    print(f"  longest wait without a word on stderr: {quiet:.1f} s (CLI writes), {run.silent_sync:.1f} s "
          f"(sync/undo); limit {SILENT_LIMIT_S:g} s")
    reasons: dict[str, int] = {}
    for w in run.writes:
        if w.outcome == "failed":
            reason = re.sub(r"[0-9a-f]{7,}|\d+", "N", w.message.splitlines()[-1] if w.message else "?")[:110]
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    refused x{n}: {reason}")
    print(f"person lines added: {len(run.person_lines)}")
    if run.in_a_row:
        print("  most refusals in a row: " + ", ".join(f"{k} {v}" for k, v in sorted(run.in_a_row.items())))
    for what, n in sorted(run.events.items()):
        print(f"  {what}: {n}")
    for text in run.notes[:40]:
        print(f"  note: {text}")
    print(f"violations: {len(run.violations)}")
    for v in run.violations:
        print(f"  VIOLATION: {v}")


if __name__ == "__main__":
    sys.exit(main())
