"""Git for one-commit-per-write: fast at 50k files and safe inside a larger repository.

An agent commit is built from HEAD's tree, not from git's staging area: only the vault's own
paths change, so a person's staged and unstaged work elsewhere is never swept into it.

:class:`GitRepo` is composed from one part per job, each in its own module:

- :mod:`~vault_mem.store.gitobjects`: blobs, trees and commits, read through a kept
  ``git cat-file`` and written in process, big trees edited by splicing (GitPython only reads
  a whole commit, and is imported only then: a write and a read import none of it);
- :mod:`~vault_mem.store.gitrefs`: HEAD and branches, moved by compare-and-swap under git's
  lock protocol (:mod:`~vault_mem.store.gitlocks` records which locks are vault-mem's);
- :mod:`~vault_mem.store.gitindex`: git's staging area, changed through a prepared copy;
- :mod:`~vault_mem.store.gitprocs`: which person's git commands are running (process facts from
  :mod:`vault_mem.platform.procs`).

This module holds the repository itself (discovery, running git) and the write that uses them all:

- A commit lands by a compare-and-swap of the branch the write started on (never of HEAD),
  made in process as git's files backend makes it (``<ref>.lock``, compare, rename, reflogs)
  while holding git's ``index.lock`` and only while HEAD still points at that branch and no
  person's ``git commit`` is under way (our pre-commit hook marks one); git's staging area gets
  the committed blobs in the same step, from a copy of the index prepared beforehand with
  ``git update-index`` (``GIT_INDEX_FILE``). ``index.lock`` is held for a few system calls, not
  for a git process: a person's ``git add``/``commit`` refuses to start while it is held
  (measured-facts: 423 ms at 10k files for ``repo.index.add`` + ``commit``, so GitPython's
  whole-index rewrite is not used either).

Errors from git, GitPython and gitdb are translated in these modules, and only there, into
``GitError``. A ``GitRepo`` holds git processes: call ``close()`` when done (it stays usable
afterwards).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Self

from vault_mem.errors import (
    ConcurrentEditError,
    GitError,
    HeadMovedError,
    HistoryDamagedError,
    LockTimeoutError,
    UsageError,
    VaultMemError,
)
from vault_mem.model.names import visible
from vault_mem.model.trailers import AGENT
from vault_mem.platform.logs import Logger
from vault_mem.platform.programs import program, program_env
from vault_mem.store import gitindex, gitlocks
from vault_mem.store.files import checkpoint
from vault_mem.store.gitdamage import damage_in, damaged_history_message
from vault_mem.store.gitfind import discovered
from vault_mem.store.gitindex import GitIndex, PreparedIndex
from vault_mem.store.gitobjects import GitObjects, Identity, commit_time, gitpython_errors
from vault_mem.store.gitprocs import (
    MAINTENANCE,
    GitWatch,
    command_of,
    git_command,
    git_under_way,
    marked_commit,
    outlast_started_meanwhile,
    person_git_command,
    running_git,
    running_git_commit,
)
from vault_mem.store.gitrefs import GitRefs
from vault_mem.store.locks import SAY_WAITING_AFTER_S, pid_exists, this_command

if TYPE_CHECKING:
    import git

log = Logger("vault_mem.store.git")  # logging imported at the first message (start-up time)
#: how long a landed commit waits for a git gc/prune/repack, started before it landed, to end
_MAINTENANCE_WAIT_S = 60.0


class _Wait:
    """One wait before a branch moves (:meth:`GitRepo.commit_paths`, :meth:`GitRepo.land_ref`):
    its deadline (``INDEX_LOCK_WAIT_S``), its pace (2 ms doubling to 50 ms) and the one warning
    it says once it lasts (what it waits for: a person's git command, a gc, index.lock)."""

    def __init__(self, repo: GitRepo, branch: str) -> None:
        self.repo, self.branch = repo, branch
        self.start = time.monotonic()
        self.deadline = self.start + gitindex.INDEX_LOCK_WAIT_S
        self.said, self.delay = False, 0.002

    def for_git(self, maintenance: list[int]) -> None:
        """A person's git command (or a gc) goes first: HEAD must still be on the branch."""
        self.repo._check_head(self.branch)  # a write whose HEAD moved fails now, not after the command
        self.said = self.repo._say_git_wait(self.start, self.said, maintenance)

    def for_lock(self) -> None:
        """index.lock was held, or the branch or the index moved under the attempt."""
        self.said = self.repo.say_waiting(self.start, self.said)

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def pause(self) -> None:
        time.sleep(self.delay)
        self.delay = min(self.delay * 2, 0.05)


#: how much of a streamed git output (:meth:`GitRepo.stream`) is read at a time, in bytes
STREAM_PIECE = 1 << 16


#: git's settings every `git log`/`show` vault-mem runs is given, over the person's own configuration: what a
#: history read lists must not depend on the person's taste in ``git log``. ``log.showRoot=false``
#: (a documented knob that keeps a first commit's big diff out of ``git log -p``) made a root
#: commit list no change, so a peer's hooks given by the root commit of an orphan branch passed
#: as made here (mendatk33); ``log.diffMerges`` turns ``-m`` into another diff of merges;
#: ``log.follow`` follows renames of a lone path. A read that wants a root commit's changes left
#: out says ``-c log.showRoot=false`` itself (later on the command line: it wins).
FIXED_CONFIG = ("-c", "log.showRoot=true", "-c", "log.diffMerges=separate", "-c", "log.follow=false",
                "-c", "log.showSignature=false")
#: the commands those settings change (every other git is started with its arguments as given:
#: a process list, a person's wrapper of `git`, reads ``git update-index`` as ``$1``)
_LOG_COMMANDS = frozenset({"log", "show", "whatchanged"})


def with_fixed_config(args: tuple[str, ...] | list[str]) -> list[str]:
    """``args`` with :data:`FIXED_CONFIG` before them when their command (after git's own
    options: :func:`~vault_mem.store.gitprocs.git_command`) is one whose output the ``log.*``
    settings change."""
    return [*FIXED_CONFIG, *args] if git_command(["git", *args]) in _LOG_COMMANDS else list(args)


def run_git(*args: str, cwd: Path | None = None, input: bytes | None = None, env: dict | None = None,
            timeout: float | None = None) -> subprocess.CompletedProcess:
    """Run git in ``cwd`` (None: this process's folder) as vault-mem runs every git: by its
    absolute path, PATH's relative entries dropped (:mod:`vault_mem.platform.programs`), ``env``
    over this process's environment, its output captured as bytes. GitError when git cannot
    start or runs over ``timeout`` seconds; what it said is the caller's to read
    (:meth:`GitRepo.run`; a question asked before there is a repository: the workspace's)."""
    full_env = program_env({**os.environ, **env} if env else None)
    try:
        return subprocess.run([program("git"), *with_fixed_config(args)], cwd=cwd, input=input, env=full_env,
                              capture_output=True, check=False, timeout=timeout)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH; install git and retry") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} did not finish within {timeout:g} s") from exc


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def git_path(text: str) -> str:
    """A path as a git listing without ``-z`` prints it (``--name-only``, ``--raw``): git
    C-quotes a name holding a double quote, a backslash, a control character (and, unless
    ``core.quotePath=false``, any non-ASCII byte), ``"facts/caf\\303\\251.md"``; this gives the
    name back. Every reader of such a listing reads its paths through here: a quoted name read
    as it is printed is no memory path, and the sync never checked the credential it held
    (mendatk2)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return text
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _C_ESCAPES:
                out.append(_C_ESCAPES[nxt])
                i += 2
                continue
            if len(body[i + 1:i + 4]) == 3 and all(d in "01234567" for d in body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "replace")


def glob_escaped(text: str) -> str:
    """``text`` matched literally by a glob pattern of git's (a ``:(glob)`` pathspec, an ignore
    line): each ``\\ * ? [`` escaped. The one escape of a folder name put into a pattern."""
    return "".join("\\" + c if c in "\\*?[" else c for c in text)


def files_in(folder: str) -> str:
    """The pathspec of the files directly in ``folder`` (top-level relative, ``""``: the top),
    never those of the folders below it: git lists them reading that folder's tree alone. git
    lists a commit's changes whole before printing one, and a tree that names one subtree many
    times holds any number of paths for the few objects a push carries."""
    return f":(glob){glob_escaped(folder)}/*" if folder else ":(glob)*"


#: what a control character is called in :func:`refuse_control_characters`' message
_CONTROL_NAMES = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab"}


def refuse_control_characters(path: str | os.PathLike, *, making: bool = True) -> None:
    """The one rule for the folder of a vault or its repository: no control character (C0, DEL)
    in its path. git answers ``rev-parse`` one path a line, and vault-mem (:class:`GitRepo`) and
    its git hooks' shell read the answers line by line: in a folder whose path holds a newline
    the top folder read was a piece of it (``vault-mem init`` said git was not installed). Asked
    by :class:`GitRepo` at every open and by ``vault-mem init`` before it makes anything; a
    :class:`~vault_mem.errors.UsageError` names the folder (the character escaped) and the next
    step. ``making=False`` (an open): a line break alone (newline, carriage return), what breaks
    those reads: a vault made before this rule under a path with a tab or an escape keeps working
    (renamed, its approvals, kept by the folder's path, would have to be given again)."""
    text = os.path.abspath(path)
    bad = next((c for c in text if (ord(c) < 0x20 or ord(c) == 0x7F) if making or c in "\n\r"), None)
    if bad is not None:
        name = _CONTROL_NAMES.get(bad, f"U+{ord(bad):04X}")
        raise UsageError(f"the folder {visible(text)} holds a control character ({name}) in its path: git names "
                         "folders to vault-mem and its hooks one a line, so no vault can be kept there; rename the "
                         "folder (`mv`) to a name without control characters and run vault-mem there (approvals "
                         "given with `vault-mem trust` are kept by the folder's path: give them again there)")


class GitRepo(GitObjects, GitRefs, GitIndex):
    """The repository that holds a vault (found from any path inside its work tree).

    Holds, once objects are read, its ``git cat-file`` processes (and GitPython's, once a whole
    commit is read: :attr:`repo`): ``close()`` stops them (the repo stays usable; they restart
    on the next read)."""

    #: git's words the last time a read met damaged history and answered from what is there
    #: (:meth:`answer_from_what_is_there`); None while none did
    damage: str | None = None
    #: how many times a read met damaged history (a caller compares before and after its read)
    damage_seen = 0
    #: answers about fixed commits kept while a sync runs (:func:`vault_mem.store.history.remembered`)
    history_memo: dict | None = None
    #: how many :func:`~vault_mem.store.history.remembered` blocks use :attr:`history_memo` now
    history_memo_users = 0

    def __init__(self, path: Path):
        self.cwd = Path(path)
        refuse_control_characters(self.cwd, making=False)
        # git's own discovery (ceiling directories, safe.directory, GIT_DIR), as every git we run
        # reused for the opens of one command (store/gitfind.py)
        out = discovered(self.cwd, lambda: self.run("rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir",
                                                    "--git-path", "hooks", "--git-path", "info/attributes").split("\n"))
        if len(out) != 5:  # a path of the answer held a newline (reached through a link, GIT_DIR)
            refuse_control_characters(os.path.realpath(self.cwd), making=False)
            raise GitError(f"git's answer for {visible(str(self.cwd))} names a folder whose path holds a newline "
                           "(GIT_DIR, a .git file); rename that folder to a name without control characters")
        self.toplevel = Path(out[0])
        self.git_dir = (self.cwd / out[1]).resolve()
        self.common_dir = (self.cwd / out[2]).resolve()
        #: where git looks for this repository's hooks (``core.hooksPath`` and worktrees honoured)
        self.hooks_dir = (self.cwd / out[3]).resolve()
        #: the attributes file that overrides every ``.gitattributes`` (``$GIT_DIR/info/attributes``)
        self.info_attributes = (self.cwd / out[4]).resolve()
        self.objects = self.common_dir / "objects"
        #: the git processes in this work tree, for the checks each write makes in turn
        self.git_watch = GitWatch(self.toplevel)
        #: this process is a post-merge/-checkout/-rewrite hook: the git command that runs it has
        #: done its own work and waits for it, so a commit made here does not wait for that command
        #: (:func:`~vault_mem.store.gitprocs.git_under_way`); any other git command still goes first
        self.in_post_hook = False
        self._repo: git.Repo | None = None
        self._init_objects()

    @property
    def repo(self) -> git.Repo:
        """GitPython's ``Repo``, opened (and GitPython imported) at the first use: only reading
        a whole commit needs it (:meth:`commit_info`), not a write or a read."""
        with self._lock:
            if self._repo is None:
                import git

                # GitPython starts its `git cat-file` by name, in the repository's top folder: by
                # absolute path instead, so a relative PATH entry cannot find a vault's own `git`
                # (platform/programs.py)
                git.Git.GIT_PYTHON_GIT_EXECUTABLE = program("git")
                try:
                    self._repo = git.Repo(self.toplevel)
                except gitpython_errors() as exc:
                    raise GitError(f"GitPython cannot open the repository at {self.toplevel} ({exc}); "
                                   "check it with `git status` there") from exc
            return self._repo

    def close(self) -> None:
        """Stop the git processes kept open (ours and GitPython's) and drop the caches
        (idempotent)."""
        with self._lock:
            self._cat.close()
            if self._repo is not None:
                self._repo.close()
            self._clear_objects()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- processes -------------------------------------------------------------------------
    def run(self, *args: str, input: bytes | None = None, env: dict | None = None,
            binary: bool = False, check: bool = True, cwd: Path | None = None,
            timeout: float | None = None):
        """Run git; return stdout (text unless ``binary``). Raises GitError with git's words
        (and when it runs over ``timeout`` seconds)."""
        proc = run_git(*args, cwd=cwd or self.cwd, input=input, env=env, timeout=timeout)
        if check and proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
            if damage_in(msg):
                said = " ".join(line.strip() for line in msg.splitlines()[-2:])
                raise HistoryDamagedError(damaged_history_message(getattr(self, "toplevel", self.cwd),
                                                                  f"git {args[0]} failed: {said}"),
                                          partial=proc.stdout.decode("utf-8", "replace"))
            raise GitError(f"git {args[0]} failed: {msg}")
        if binary:
            return proc.stdout if check else proc
        return proc.stdout.decode("utf-8", "replace").rstrip("\n") if check else proc

    def stream(self, *args: str, input: bytes | None = None, cwd: Path | None = None,
               size: int | None = None) -> Iterator[bytes]:
        """Run git and yield its stdout as it comes, ``size`` bytes at most at a time
        (:data:`STREAM_PIECE`): a read of
        output that grows with history (``git log`` of every new commit) held a piece at a time,
        never whole. ``input`` is written first (git's ``--stdin`` reads it whole before it
        answers). Once the output ends, git's failure raises as :meth:`run`'s does (its
        ``partial`` empty: what came was yielded); a reader that stops early stops git."""
        full_env = program_env(None)
        try:
            proc = subprocess.Popen([program("git"), *with_fixed_config(args)], cwd=cwd or self.cwd, env=full_env,
                                    stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git and retry") from exc
        # git's words, read beside its output (a pipe left unread would stop git once full),
        # the last 64 KB kept: its fatal words end them
        said: list[bytes] = []
        reader = threading.Thread(target=_keep_tail, args=(proc.stderr, said), daemon=True)
        reader.start()
        try:
            if input is not None:
                try:
                    proc.stdin.write(input)  # type: ignore[union-attr]
                except BrokenPipeError:
                    pass  # git stopped early: its words say why, below
                finally:
                    proc.stdin.close()  # type: ignore[union-attr]
            while piece := proc.stdout.read1(size or STREAM_PIECE):  # type: ignore[union-attr]
                yield piece
            code = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            reader.join()
            proc.stderr.close()  # type: ignore[union-attr]
        if code != 0:
            msg = b"".join(said).decode("utf-8", "replace").strip() or f"exit {code}"
            if damage_in(msg):
                said_last = " ".join(line.strip() for line in msg.splitlines()[-2:])
                raise HistoryDamagedError(damaged_history_message(getattr(self, "toplevel", self.cwd),
                                                                  f"git {args[0]} failed: {said_last}"), partial="")
            raise GitError(f"git {args[0]} failed: {msg}")

    def answer_from_what_is_there(self, exc: HistoryDamagedError) -> str:
        """What a history read that met damaged history answers from: the output git gave before
        the damage. The damage is kept in :attr:`damage`, for a notice (reads answer, and say so)."""
        self.damage = str(exc)
        self.damage_seen += 1
        return exc.partial

    # -- state -----------------------------------------------------------------------------
    def operation_in_progress(self) -> str | None:
        """The name of a merge/rebase/revert/cherry-pick/bisect under way, else None."""
        # the outer operation first: a rebase stopped at a pick or an `edit` can hold a
        # cherry-pick's or a merge's marker too, and "a git cherry-pick is in progress" sent the
        # person looking for a cherry-pick they never started
        markers = {
            "rebase-merge": "rebase", "rebase-apply/applying": "am", "rebase-apply": "rebase",
            "MERGE_HEAD": "merge", "REVERT_HEAD": "revert", "CHERRY_PICK_HEAD": "cherry-pick",
            "BISECT_LOG": "bisect", "BISECT_START": "bisect", "sequencer": "cherry-pick",
        }
        for name, what in markers.items():
            if (self.git_dir / name).exists():
                return what
        return None

    def concluding_replay(self) -> bool:
        """Whether the work tree and git's index hold a pick, revert or squash git merged and no
        commit concludes yet: ``CHERRY_PICK_HEAD``, ``REVERT_HEAD``, a ``sequencer`` folder,
        ``SQUASH_MSG`` (``git merge --squash``), or ``MERGE_MSG`` with no merge or rebase under
        way (``cherry-pick -n``, ``revert -n``, which leave only that). What the pre-commit hook
        marks as a replay (:data:`vault_mem.store.hooks.RECORD`), read from the files, no git
        process: the files git changed then are no edit made here, whatever ``git status`` says."""
        there = {name for name in ("CHERRY_PICK_HEAD", "REVERT_HEAD", "sequencer", "SQUASH_MSG", "MERGE_MSG",
                                   "MERGE_HEAD", "rebase-merge", "rebase-apply") if (self.git_dir / name).exists()}
        return bool(there & {"CHERRY_PICK_HEAD", "REVERT_HEAD", "sequencer", "SQUASH_MSG"}) or \
            there == {"MERGE_MSG"}

    def merge_heads(self) -> list[str]:
        """The commits a merge under way is merging (``MERGE_HEAD``'s lines), no git process."""
        return self.head_files("MERGE_HEAD")

    def incoming_heads(self) -> list[str]:
        """The commits whose changes a merge, cherry-pick, revert or rebase under way has put in
        the work tree and git's index but not yet in a commit (``MERGE_HEAD``'s lines,
        ``CHERRY_PICK_HEAD``, ``REVERT_HEAD``, ``REBASE_HEAD``): those files were not changed on
        this machine, whatever ``git status`` says; and a squash's tip (:meth:`squashed_tip`).
        Read from the files, no git process."""
        return self.head_files("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD") + self.squashed_tip()

    def index_state(self) -> tuple | None:
        """``(HEAD's commit, what git reads it and its index through)``: what git's answers about
        the index against HEAD's tree (``git status``, ``git diff-index --cached HEAD``, ``git
        ls-files``) are made from, as one value that moves when any of it does: HEAD; the index
        file git reads (:func:`~vault_mem.store.gitindex.index_file_read`: ``GIT_INDEX_FILE``
        in a commit's hooks) by its signature (:func:`~vault_mem.store.gitindex.index_file_signature`);
        the ``git replace`` refs git reads HEAD's tree through (:meth:`replace_refs`: git reads
        the replacement, as the in-process object reader leaves it to git). None when it cannot
        be told (an unborn HEAD, an unreadable index or ref): nothing is kept then. No git
        process: a few ``stat`` calls and small reads, and the 20-byte trailer of the index."""
        try:
            head = self.head()
            if head is None:
                return None
            path = gitindex.index_file_read(self.toplevel, self.git_dir)
            return head, (str(path), gitindex.index_file_signature(path), self.replace_refs())
        except (OSError, VaultMemError):
            return None

    def squashed_tip(self) -> list[str]:
        """The tip of the branch a ``git merge --squash`` not committed yet brought into the work
        tree (the first ``commit ID`` line of ``SQUASH_MSG``: the lines after it quote commit
        messages, which a peer writes), or nothing. git leaves no ``MERGE_HEAD`` for a squash."""
        try:
            with open(self.git_dir / "SQUASH_MSG", encoding="utf-8", errors="replace") as fh:
                for _ in range(8):
                    words = fh.readline().split()
                    if len(words) == 2 and words[0] == "commit" and len(words[1]) in (40, 64) \
                            and all(c in "0123456789abcdef" for c in words[1]):
                        return [words[1]]
        except OSError:
            pass
        return []

    def head_files(self, *names: str) -> list[str]:
        """The commit ids the files ``names`` of the git folder hold (``FETCH_HEAD``, ...)."""
        out: list[str] = []
        for name in names:
            try:
                text = (self.git_dir / name).read_text(encoding="ascii", errors="replace")
            except OSError:
                continue
            out += [w for w in text.split() if len(w) in (40, 64) and all(c in "0123456789abcdef" for c in w)]
        return out

    def person_operation(self) -> str | None:
        """What a person's git operation under way in this work tree is, in words, else None:
        a merge/rebase/... with its state on disk, or a running ``git pull``/``rebase``/
        ``checkout``/``switch``/``stash``/``reset``/``merge``/... (the running processes: a rebase with
        ``--autostash`` stashes, resets and checks out before its state folder exists). Agents
        must not change the work tree meanwhile, or git finds local changes and stops half-way."""
        op = self.operation_in_progress()
        if op:
            return f"a git {op} (finish or abort it: git {op} --continue / --abort)"
        return self.person_git_command()

    def person_git_command(self) -> str | None:
        """A running git command that changes the work tree here (pull, rebase, checkout, ...),
        in words (``a person's `git checkout` (pid N)``), else None."""
        return person_git_command(self.toplevel, self.git_watch)

    def person_commit(self) -> int | None:
        """The pid of a person's ``git commit`` (or merge, revert, ...) under way in this work
        tree, else None. Two signs: the mark its pre-commit hook writes first thing (it covers a
        commit whose message editor stays open; a mark left by one that ended is removed), and,
        for the moment between git reading HEAD and its hook starting, a live git process of
        that kind working in this work tree (where processes can be listed)."""
        return marked_commit(self.git_dir) or running_git_commit(self.toplevel, self.git_watch)

    def last_changes(self, paths: list[str]) -> dict[str, tuple[int, bool]]:
        """For each of ``paths`` (top-level relative), the commit on HEAD that last changed it:
        (committer time in seconds, whether it is a vault-mem write: it has an ``Agent:``
        trailer); a path no commit changed, or one whose last commit's time no date holds, is left out. One ``git log`` walks back from HEAD
        and stops once every path is found (at worst the whole history: a clone's first index)."""
        want = set(paths)
        found: dict[str, tuple[int | None, bool]] = {}
        if not want or self.head() is None:
            return found
        # the files of each path's own folder, never the folders below it (files_in): a peer's
        # commit adding a folder that names one folder 600 times, taken by a sync with the commit
        # deleting it, made this walk list 360,000 paths on its way to an older memory's commit
        folders = sorted({files_in(p.rsplit("/", 1)[0] if "/" in p else "") for p in want})
        try:
            proc = subprocess.Popen(
                [program("git"), *FIXED_CONFIG, "-c", "core.quotePath=false", "log", "--no-renames", "--name-only",
                 f"--format=%x01%ct %(trailers:key={AGENT},valueonly,separator=%x2C)", "HEAD", "--", *folders],
                cwd=self.toplevel, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=program_env())
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git and retry") from exc
        commit: tuple[int | None, bool] = (0, False)
        try:
            for raw in proc.stdout:  # type: ignore[union-attr]
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith("\x01"):
                    when, _, agent = line[1:].partition(" ")
                    commit = (commit_time(when), bool(agent.strip()))
                elif (line := git_path(line)) in want and line not in found:
                    found[line] = commit
                    if len(found) == len(want):
                        break
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
        # a commit whose time no date holds (a peer's: commit_time) dates nothing: left out
        return {path: (when, agent) for path, (when, agent) in found.items() if when is not None}

    # -- the write -------------------------------------------------------------------------
    def commit_paths(
        self,
        files: dict[str, bytes | None],
        message: str,
        *,
        author: Identity,
        committer: Identity | None = None,
        branch: str | None = None,
        derived: tuple[str, Callable[[str | None], bytes | None]] | None = None,
        warnings: list[str] | None = None,
        landed: Callable[[], None] | None = None,
        on_disk: Callable[[], bool] | None = None,
        aside: Callable[[], contextlib.AbstractContextManager] | None = None,
    ) -> str | None:
        """Commit exactly ``files`` ({top-level-relative path: bytes, or None to delete}) on top
        of ``branch`` (``refs/heads/...``; default: the one HEAD is on now). Returns the new
        commit id, or None when the tree would not change (an identical write makes no commit).

        ``derived`` is (path, make): ``make(parent)`` gives that file's bytes for a commit on
        ``parent`` (INDEX.md, generated from the tree being committed), asked again when the
        branch moved and the commit is rebuilt.

        The commit lands by one compare-and-swap on the branch, made while holding git's
        ``index.lock`` (the lock order is the vault's write lock, then index.lock): the branch
        is never moved while a person's ``git commit`` is under way (it holds index.lock from
        before its hook until after its own ref update), HEAD must still point at ``branch``
        (else :class:`HeadMovedError`, nothing landed), and git's staging area gets exactly the
        committed blobs in the same step. When the branch moved (a person's commit), the commit
        is rebuilt on the new tip, unless that tip changed one of ``files`` (ConcurrentEditError:
        nothing landed). What fails after the branch moved is added to ``warnings``: the commit landed.

        ``landed()`` runs as soon as the commit has landed, before anything else (the work tree's
        files that follow from the commit: until then git sees them changed).

        ``on_disk()``, asked under index.lock just before the branch moves, says whether the work
        tree still holds the committed files (a person's edits, read before a wait): False raises
        ConcurrentEditError and nothing lands. A person's ``git stash`` that ran meanwhile put
        HEAD's older version back on disk; a commit of the stashed bytes landing then makes the
        stash's pop change nothing, and the file kept the older version (the person's lines lost).

        ``aside()``: a context in which the caller's write lock lets the daemon work on the other
        files (:meth:`~vault_mem.store.locks.WriteLock.stepped_aside`), entered while the commit
        waits for a person's git command or a gc and left once git looks done; everything is
        checked again after it (the branch, HEAD, git's index), as after any pause.

        ``message`` is committed as memory text is shown anywhere
        (:func:`~vault_mem.model.names.visible`): it quotes descriptions and subjects a peer
        wrote (``forget`` or a hand deletion of a peer's memory, ``undo`` of a peer's commit), and
        an OSC sequence or U+202E in it ran in every terminal that printed this machine's history
        (``git log`` without a pager, ``git reflog``, ``tig``) and showed on forge pages. One
        place for every commit vault-mem makes: attack54 escaped the agent writes' subjects
        alone, and the commits of hand edits kept a peer's description raw."""
        message = visible(message, prose=True)
        branch = branch or self.head_branch()
        if branch is None:
            raise HeadMovedError(f"HEAD is detached in {self.toplevel}; `git switch <branch>` and retry")
        outer = getattr(self._local, "written", None)
        self._local.written = {}
        try:
            return self._commit_paths(branch, files, message, author, committer, derived, warnings, landed, on_disk,
                                      aside)
        finally:
            if outer is not None:  # inside objects_before_refs: its record keeps these too
                outer.update(self._local.written)
            self._local.written = outer

    @contextlib.contextmanager
    def objects_before_refs(self) -> Iterator[Callable[[list[str] | None], None]]:
        """For a writer that moves a ref itself (a sync's ``update-ref``): every object written
        in the block is recorded, and the function yielded, called right after the ref moved,
        does what :meth:`commit_paths` does after its compare-and-swap: waits for a ``git gc``/
        ``prune``/``repack`` running meanwhile and stores again what it removed (warnings go to
        the list given). Objects before refs, for every writer of history."""
        outer = getattr(self._local, "written", None)
        self._local.written = {}
        try:
            yield lambda warnings=None: self._keep_objects(dict(self._local.written), warnings)
        finally:
            if outer is not None:
                outer.update(self._local.written)
            self._local.written = outer

    def _commit_paths(self, branch: str, files: dict[str, bytes | None], message: str, author: Identity,
                      committer: Identity | None,
                      derived: tuple[str, Callable[[str | None], bytes | None]] | None,
                      warnings: list[str] | None, landed: Callable[[], None] | None = None,
                      on_disk: Callable[[], bool] | None = None,
                      aside: Callable[[], contextlib.AbstractContextManager] | None = None) -> str | None:
        blobs = {p: (self.write_object("blob", d) if d is not None else None) for p, d in files.items()}
        first_line = message.splitlines()[0] if message else "commit"
        wait = _Wait(self, branch)
        first_parent: str | None | bool = False
        built: tuple[str | None, str, dict[str, str | None]] | None = None
        gc_seen = False
        while True:
            parent = self.ref_value(branch)
            if built is None or built[0] != parent:
                # The commit (its tree, INDEX.md's render) is built once per parent: a write that
                # waits for a person's git command or a gc only asks again whether git is busy
                # (it rendered INDEX.md and listed the processes twice every 50 ms for up to 30 s)
                if built is not None:  # a commit on an older parent never lands: its objects need no keeping
                    self._local.written = {k: v for k, v in self._local.written.items() if v[0] == "blob"}
                if first_parent is False:
                    first_parent = parent
                elif parent != first_parent:
                    self._check_not_changed(files, blobs, first_parent, parent)  # type: ignore[arg-type]
                made = self._build(parent, blobs, message, author, committer, derived)
                if made is None:
                    return None
                built, gc_seen = (parent, *made), False
            _, commit, want = built
            # objects before refs: a `git gc --prune=now` (prune, repack -ad) that walked the refs
            # before this commit landed deletes its objects after; it goes first (bench/chaos.py:
            # a gc slower than the wait after landing left the branch on a missing commit)
            maintenance, person = self._git_running()
            if maintenance or person:
                # it goes first, and index.lock is not even taken meanwhile: git dies on a held
                # one, and a `git pull --rebase --autostash` that dies between its stash and its
                # reset leaves a rebase half-way (this loop polled index.lock every 50 ms)
                wait.for_git(maintenance)
                gc_seen = gc_seen or bool(maintenance)
                staged = None
            else:
                if gc_seen:  # built before a gc that may have removed its objects: stored again first
                    self._store_missing(self._local.written)
                    gc_seen = False
                staged = self._prepare_index(want)
            outcome = False
            if staged is not None:
                try:
                    outcome = self._land(branch, commit, parent, staged, f"commit: {first_line}",
                                         committer or author, warnings, on_disk)
                finally:
                    staged.path.unlink(missing_ok=True)
            if outcome:
                if landed is not None:
                    try:
                        landed()
                    except Exception as exc:  # noqa: BLE001 - the commit landed: this can only warn
                        if warnings is not None:
                            warnings.append(f"committed, but what follows the commit failed ({exc}); "
                                            "the next command finishes it")
                self._keep_objects(self._local.written, warnings)
                self.note_own_change(commit, parent, want)
                return commit
            if staged is not None:
                wait.for_lock()
            if wait.expired():
                who = self.person_commit()
                busy = None if who else self.person_git_command()
                if not who and not busy and maintenance:
                    busy = f"a `git {command_of(maintenance[0]) or 'gc'}` (pid {maintenance[0]})"
                raise LockTimeoutError(
                    f"could not commit for {gitindex.INDEX_LOCK_WAIT_S:.0f} s: " + (
                        f"a git commit (pid {who}) is under way; nothing was written: retry when it is done"
                        if who else
                        f"{busy} is under way; nothing was written: retry when it is done" if busy else
                        f"{branch} kept moving, or git's index.lock in {self.git_dir} stayed held, "
                        f"{self._index_lock_holder()}; nothing was written"))
            if staged is None and aside is not None:
                # waiting for a person's git command (or a gc), with the work-tree part of the
                # write lock given up until it looks done: the daemon may put back what a stash
                # pop brought back meanwhile, whose file then stops refusing the person's
                # checkout. Taken back once, when git looks done, and the next pass checks
                # everything again under it (given up and taken back on every 50 ms pass, the
                # writer competed with the daemon for the gaps between the person's commands)
                with aside():
                    while not wait.expired():
                        wait.pause()
                        maintenance, person = self._git_running()
                        if not (maintenance or person):
                            break
                        wait.for_git(maintenance)
                        gc_seen = gc_seen or bool(maintenance)
                continue
            wait.pause()

    def _say_git_wait(self, start: float, said: bool, maintenance: list[int]) -> bool:
        """Say, once the wait passes SAY_WAITING_AFTER_S, which git command a commit waits for."""
        if not said and time.monotonic() - start >= SAY_WAITING_AFTER_S:
            log.warning("vault-mem: waiting for %s in %s to finish before committing (up to %.0f s)",
                        f"`git {command_of(maintenance[0]) or 'gc'}` (pid {maintenance[0]})" if maintenance
                        else self.person_git_command() or "a person's git commit", self.toplevel,
                        gitindex.INDEX_LOCK_WAIT_S)
            said = True
        return said

    def _check_not_changed(self, files: dict[str, bytes | None], blobs: dict[str, str | None],
                           first_parent: str | None, parent: str | None) -> None:
        """ConcurrentEditError when a commit made since the write began (``first_parent`` to
        ``parent``) changed one of ``files`` to other bytes than the write's."""
        for path in files:
            now = self.blob_at(parent, path)
            # a commit that took in exactly these bytes (a person's `git commit -a` while
            # the file was on disk) is no conflict: the write is on the branch already
            if now != self.blob_at(first_parent, path) and now != blobs[path]:
                raise ConcurrentEditError(
                    f"{path} changed in a commit made while vault-mem was writing it; your edit "
                    "is kept and nothing was written: check it and retry")

    def _build(self, parent: str | None, blobs: dict[str, str | None], message: str, author: Identity,
               committer: Identity | None, derived: tuple[str, Callable[[str | None], bytes | None]] | None
               ) -> tuple[str, dict[str, str | None]] | None:
        """The commit of ``blobs`` (and ``derived``, made for ``parent``) on ``parent``: (its id,
        the blobs it sets); None when the tree would not change."""
        want = dict(blobs)
        if derived is not None:
            data = derived[1](parent)
            want[derived[0]] = self.write_object("blob", data) if data is not None else None
        base = self.commit_tree(parent)
        tree = self.edit_tree(base, want) or self.empty_tree()
        if tree == base:
            return None
        return self.write_commit(tree, parent, message, author=author, committer=committer), want

    def _git_running(self, recheck: bool = False) -> tuple[list[int], bool]:
        """The running ``git gc``/``prune``/``repack`` pids, and whether a person's git command
        that moves the branch or changes the work tree is under way
        (:func:`~vault_mem.store.gitprocs.git_under_way`): vault-mem then neither lands a commit
        nor takes ``index.lock``. ``recheck``: asked again right after, only what started since
        is read (under ``index.lock``)."""
        return git_under_way(self.git_dir, self.toplevel, self.git_watch, recheck, hook_parent=self.in_post_hook)

    def land_ref(self, new: str, old: str | None, *, reflog: str, who: Identity) -> bool:
        """Move HEAD's branch from ``old`` to ``new``, commits its caller made (a sync's), as
        :meth:`commit_paths` lands one: never while a person's git command that moves the branch
        (or a gc) runs, which goes first (waited for, up to ``INDEX_LOCK_WAIT_S``); under git's
        ``index.lock``; keeping it for a person's commit that started meanwhile. A sync's plain
        ``git update-ref`` moved the branch under a person's ``git commit`` at its message
        editor, which then died with "cannot lock ref 'HEAD'". False: the branch is not at
        ``old`` (a person's commit landed first); HeadMovedError: HEAD left its branch."""
        branch = self.head_branch()
        if branch is None:
            raise HeadMovedError(f"HEAD is detached in {self.toplevel}; `git switch <branch>` and retry")
        wait = _Wait(self, branch)
        while self.ref_value(branch) == old:
            maintenance, person = self._git_running()
            if person or maintenance:
                wait.for_git(maintenance)
            elif self._land(branch, new, old, None, reflog, who, None):
                return True
            else:  # index.lock held (a person's git, or one a crashed git left): said as a write says it
                wait.for_lock()
            if wait.expired():
                raise LockTimeoutError(f"could not move {branch} for {gitindex.INDEX_LOCK_WAIT_S:.0f} s: "
                                       f"{self.person_git_command() or 'a git command'} kept it busy, or git's "
                                       f"index.lock in {self.git_dir} stayed held, {self._index_lock_holder()}")
            wait.pause()
        return False

    def _land(self, branch: str, commit: str, parent: str | None, staged: PreparedIndex | None,
              reflog: str, who: Identity, warnings: list[str] | None,
              on_disk: Callable[[], bool] | None = None) -> bool:
        """Under git's index.lock: check HEAD and the index, move ``branch`` from ``parent`` to
        ``commit``, install the prepared index (``staged``; None: the caller brings git's index
        up to date itself). False: not landed, try again (index.lock held, the index or the
        branch changed meanwhile); HeadMovedError: HEAD left ``branch``."""
        lock = self.git_dir / "index.lock"
        record = self._take_lock(lock, self.git_dir, f"vault-mem pid {os.getpid()} ({this_command()})\n".encode())
        if record is None:
            return False  # a person's git command is under way: it finishes first
        try:
            checkpoint("holding-index-lock", self.git_dir)
            self._check_head(branch)
            if staged is not None and self.index_signature() != staged.signature:
                return False  # someone wrote the index since it was copied: copy it again
            # a person's git commit (or checkout, pull, ...) started since the scan before the lock:
            # it goes first. Only the processes started since are read: the lock is held for a
            # listing of /proc and a few reads, not for a read of every process
            if self._git_running(recheck=True)[1]:
                return False
            if on_disk is not None and not on_disk():
                raise ConcurrentEditError(
                    "a file changed on disk while its edit was being committed (a git stash, reset or "
                    "checkout, or a new save); nothing was committed: it is committed as it is now later")
            if not self._swap_ref(branch, commit, parent, who, reflog):
                return False  # the branch moved (a tool that takes no index.lock): rebuild on it
            try:  # landed: whatever fails from here on is a warning, never a failed write
                if staged is not None and staged.path.exists():
                    self.install_prepared_index(staged)  # while index.lock is held: git's rule
            except OSError as exc:
                if warnings is not None:
                    warnings.append(f"committed, but git's staging area was not updated ({exc}); "
                                    "`git status` may show the write as a change: run `git reset -q`")
            # a person's `git commit` that started since the check above may have read the old
            # HEAD: it meets index.lock held, not a moved branch after its work
            outlast_started_meanwhile(self.toplevel, self.git_watch, hook_parent=self.in_post_hook)
            return True
        finally:
            gitlocks.release(lock, record)

    def _check_head(self, branch: str) -> None:
        """HeadMovedError unless HEAD still points at ``branch`` (the write commits there or not at all)."""
        if self.head_said() != f"ref: {branch}":
            raise HeadMovedError(
                f"HEAD moved off {branch.removeprefix('refs/heads/')} while vault-mem was writing "
                "(a git checkout?); nothing was written: retry on a branch")

    def _keep_objects(self, written: dict[str, tuple[str, bytes]], warnings: list[str] | None) -> None:
        """:meth:`keep_after_ref` for the objects a write stored itself (``written``)."""
        self.keep_after_ref(lambda: self._store_missing(written), warnings)

    def keep_after_ref(self, store_again: Callable[[], list[str]], warnings: list[str] | None) -> None:
        """Objects before refs: a ref now names new objects, but a ``git gc --prune=now`` (or
        ``git prune``, ``git repack -ad``) that walked the refs before it moved may still delete
        them. Wait for those that were running (bounded), then ``store_again()`` stores again
        any object that went missing (it returns those it could not), so the acknowledged commit
        is whole. Never raises: the ref moved.

        Every process is read for it (``fresh``), never only those started since the write's
        last listing: a `git prune` that a loaded machine exec'd from a fork older than
        :data:`~vault_mem.platform.procs.YOUNG_S` was no git to that listing and stayed unread,
        walked the refs before the branch moved and deleted the new commit after (CI: a branch on
        a missing commit after a sync, 1 run in 7). A git that is not one yet, now, reads the
        refs after they moved: one full listing after landing sees every gc that can matter."""
        running: list[int] = []
        try:
            start = time.monotonic()
            running = running_git(self.toplevel, MAINTENANCE, watch=self.git_watch, fresh=True)
            said = False
            while running and time.monotonic() < start + _MAINTENANCE_WAIT_S:
                if not said and time.monotonic() - start >= SAY_WAITING_AFTER_S:
                    said = True  # every wait says what it waits for, within seconds
                    log.warning("vault-mem: committed; waiting for `git %s` (pid %d) to end so that it "
                                "cannot remove the new objects (up to %.0f s)",
                                command_of(running[0]) or "gc", running[0], _MAINTENANCE_WAIT_S)
                time.sleep(0.01)
                running = [pid for pid in running if pid_exists(pid)]
            missing = store_again()
            if warnings is None:
                return
            if missing:
                warnings.append("committed, but a `git gc`/`git prune` running meanwhile kept removing its "
                                f"objects ({', '.join(m[:10] for m in missing)}); run `vault-mem doctor` after it")
            if running:
                warnings.append(f"committed while a git gc/prune/repack (pid {running[0]}) was still running "
                                f"after {_MAINTENANCE_WAIT_S:.0f} s; run `vault-mem doctor` when it is done")
        except Exception as exc:  # noqa: BLE001 - the commit landed: this can only warn
            if warnings is not None:
                warnings.append(f"committed, but checking its objects failed ({exc}); run `vault-mem doctor`")

    def _store_missing(self, written: dict[str, tuple[str, bytes]]) -> list[str]:
        """Store again each of ``written`` that a gc/prune removed (three rounds, for one that
        keeps removing them); returns those still missing after the last."""
        missing: list[str] = []
        for _ in range(3):
            missing = [oid for oid in written if not self.has_object(oid)]
            for oid in missing:
                kind, data = written[oid]
                self.write_object(kind, data)
            if not missing:
                break
        return missing


def _keep_tail(pipe, into: list[bytes], limit: int = 1 << 16) -> None:
    """Read ``pipe`` to its end, keeping its last ``limit`` bytes (appended to ``into``)."""
    tail = b""
    while chunk := pipe.read1(limit):
        tail = (tail + chunk)[-limit:]
    into.append(tail)
