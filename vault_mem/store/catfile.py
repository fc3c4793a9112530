"""``git cat-file --batch`` and ``--batch-check``, kept running: the git store's object reads.

Part of :mod:`vault_mem.store.gitobjects`. One persistent process per mode, started at its first
question and stopped by :meth:`CatFile.close` (started again by the next question), as GitPython
kept them; they are ours so that a write or a read imports no GitPython (its import costs a
one-shot command ~170 ms of CPU, a third of a write: issue 29). git answers each question on its
own: it finds objects another git moved into a new pack, and one whose pack a ``git repack -ad``
removed under the process makes it fail; the caller then closes it and asks once more.

The caller serialises questions (the git store's lock): the pipe protocol is one at a time.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from vault_mem.platform.programs import program, program_env


class CatFileError(OSError):
    """The cat-file process failed, died or answered out of step (an ``OSError``, as GitPython's
    were among the errors the git store translates: ``GIT_ERRORS``)."""


class CatFile:
    """The two ``git cat-file`` processes of one repository (run in its top folder)."""

    def __init__(self, cwd: Path):
        self.cwd = cwd
        self._procs: dict[str, subprocess.Popen] = {}

    def _proc(self, mode: str) -> subprocess.Popen:
        proc = self._procs.get(mode)
        if proc is None or proc.poll() is not None:
            try:
                proc = subprocess.Popen(
                    [program("git"), "cat-file", mode], cwd=self.cwd, env=program_env(None),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except FileNotFoundError as exc:
                raise CatFileError(f"git is not installed or not on PATH ({exc})") from exc
            self._procs[mode] = proc
        return proc

    def _ask(self, mode: str, spec: str) -> tuple[subprocess.Popen, list[bytes]]:
        if "\n" in spec:
            raise ValueError(f"an object name with a newline: {spec!r}")
        proc = self._proc(mode)
        try:
            proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (OSError, ValueError) as exc:
            raise CatFileError(f"git cat-file {mode} failed ({exc})") from exc
        if not line.endswith(b"\n"):
            raise CatFileError(f"git cat-file {mode} ended (did a `git gc` remove a pack it read?)")
        return proc, line.split()

    def header(self, spec: str) -> tuple[str, str, int] | None:
        """(hex id, type, size) of the object ``spec`` names (an id or ``<tree>:<path>``), or
        None when git says it is missing."""
        _, words = self._ask("--batch-check", spec)
        if len(words) >= 2 and words[-1] == b"missing":
            return None
        if len(words) != 3 or not words[2].isdigit():
            raise CatFileError(f"git cat-file --batch-check answered {b' '.join(words)!r} for {spec}")
        return words[0].decode(), words[1].decode(), int(words[2])

    def read(self, oid: str) -> tuple[str, bytes] | None:
        """(type, content) of the object ``oid``, or None when git says it is missing."""
        proc, words = self._ask("--batch", oid)
        if len(words) >= 2 and words[-1] == b"missing":
            return None
        if len(words) != 3 or not words[2].isdigit():
            raise CatFileError(f"git cat-file --batch answered {b' '.join(words)!r} for {oid}")
        size = int(words[2])
        try:
            data = proc.stdout.read(size + 1)
        except (OSError, ValueError) as exc:
            raise CatFileError(f"git cat-file --batch failed ({exc})") from exc
        if len(data) != size + 1 or data[-1:] != b"\n":
            raise CatFileError(f"git cat-file --batch ended within object {oid}")
        return words[1].decode(), data[:-1]

    def running(self) -> list[subprocess.Popen]:
        """The processes running now (for tests)."""
        return [p for p in self._procs.values() if p.poll() is None]

    def __del__(self) -> None:
        # a repository dropped unclosed: its processes end with it, as GitPython's did
        for proc in list(getattr(self, "_procs", {}).values()):
            try:
                proc.stdin.close()
                proc.terminate()
                proc.wait(timeout=1)
                proc.stdout.close()
            except Exception:  # noqa: BLE001 - at interpreter exit anything may be gone
                pass

    def close(self) -> None:
        """Stop the processes (idempotent; the next question starts them again)."""
        procs, self._procs = list(self._procs.values()), {}
        for proc in procs:
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()


def stream(cwd: Path, oids: list[str]) -> Iterator[tuple[str, bytes] | None]:
    """(type, content) of each of ``oids`` in turn (None for a missing one), through one ``git
    cat-file --batch`` of its own whose questions a thread writes all at once: git reads ahead
    while the caller handles each object (no round trip per object), and only the object being
    handed over is held here. Stopped early (an exception in the caller), git is stopped too."""
    if any("\n" in oid for oid in oids):
        raise ValueError("an object name with a newline")
    try:
        proc = subprocess.Popen([program("git"), "cat-file", "--batch"], cwd=cwd, env=program_env(None),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise CatFileError(f"git is not installed or not on PATH ({exc})") from exc

    def ask() -> None:
        with contextlib.suppress(OSError, ValueError):  # git stopped: the reader says why
            for oid in oids:
                proc.stdin.write(oid.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.close()

    writer = threading.Thread(target=ask, name="cat-file-questions", daemon=True)
    writer.start()
    try:
        for oid in oids:
            words = proc.stdout.readline().split()
            if len(words) >= 2 and words[-1] == b"missing":
                yield None
                continue
            if len(words) != 3 or not words[2].isdigit():
                raise CatFileError(f"git cat-file --batch answered {b' '.join(words)!r} for {oid}")
            size = int(words[2])
            data = proc.stdout.read(size + 1)
            if len(data) != size + 1 or data[-1:] != b"\n":
                raise CatFileError(f"git cat-file --batch ended within object {oid}")
            yield words[1].decode(), data[:-1]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        writer.join()
        proc.stdout.close()
        with contextlib.suppress(OSError):
            proc.stdin.close()
