"""The peers' judgement brought along a change equals the whole judgement made from scratch
(:mod:`vault_mem.vault.peers`, issue 29): one warm :class:`Vault` (as the MCP server and the
daemon keep one) judges again only the paths each change can have touched; after every step of
random sequences of real changes it is compared with a vault opened anew, which judges every
memory: the peers' memories (path and author), the session context that leaves them out (its
kept table of the rows not left out, brought along too) and a prompt's trusted-only recall.

The changes are the real ones: agent writes (this process's vault and another's), the person's
hand edits (whole rewrites, a line added to a peer's text, deletions, moves, a copy of a peer's
text), the person's commits through git with vault-mem's hooks, a file staged alone, git's index
changed alone (``git rm --cached``, ``git update-index --assume-unchanged``), a peer's
pushes (new memories, edits, deletions, a copy of the person's text, a move of the person's
memory or its own, across type folders, with or without a change) taken by ``vault-mem sync``
and by a plain ``git pull``, ``vault-mem forget`` and ``undo``, the person's ``git revert``, a
peer's force-push taken by ``git reset --hard``, and approvals given and withdrawn
(``vault-mem trust --author``: the whole judgement again, by design). Real git, a real bare
remote, real SQLite, the real trust file."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PEER_EMAIL, cli, count_standing, git, new_vault, publish

import vault_mem
from vault_mem import Vault
from vault_mem.errors import VaultMemError
from vault_mem.index import authors as index_rows
from vault_mem.store.trust import approve_authors, trust_file
from vault_mem.vault import authors
from vault_mem.vault.peers import KeptPeers

N_PEER = 72  # over the 64 candidates past which the judgement asks `git status` (authors.FILE_CHECKS)
PEER_ENV = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
            "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}


def memory(description: str, *lines: str) -> str:
    return "---\ndescription: {}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{}\n".format(
        description, "\n".join(lines))


def run(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, check=False)


def settle(root: Path) -> None:
    """Whatever a step left under way (a pull that stopped at a conflict) given up, so that the
    next read is one the judgement keeps."""
    git_dir = root / ".git"
    if (git_dir / "MERGE_HEAD").exists():
        run(root, "merge", "--abort")
    if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
        run(root, "rebase", "--abort")
    if (git_dir / "REVERT_HEAD").exists():
        run(root, "revert", "--abort")


class World:
    """The person's vault ``root`` (kept open as ``warm``), a bare remote and a peer's clone."""

    def __init__(self, tmp_path: Path, rng: random.Random) -> None:
        self.rng = rng
        vault = new_vault(tmp_path / "mine")
        self.root = vault.root
        vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
        vault.close()
        self.bare = publish(self.root, tmp_path)
        self.peer = tmp_path / "peer"
        git(self.peer, "config", "user.email", PEER_EMAIL)
        git(self.peer, "config", "user.name", "Mallory")
        (self.peer / "facts").mkdir(exist_ok=True)
        for i in range(N_PEER):
            (self.peer / "facts" / f"peer-{i:03d}.md").write_text(memory(
                f"Deploys to staging happen on day {i}", f"Peer note {i} about staging deploys.",
                f"Run the deploy script {i} first."), encoding="utf-8")
        self.push_as_peer("the peer's deploy notes")
        assert run(self.root, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main").returncode == 0
        self.warm = Vault(self.root)
        self.n = 0
        self.approved = False
        self.peer_moved = False
        self.why = ""
        self.warm_why = ""  # why the warm vault judged as it did at its last comparison
        self._forker: subprocess.Popen | None = None  # the one-shot processes' parent (one_shot)
        self._forker_log = self.root.parent / "one-shot-stderr.log"

    # -- helpers ---------------------------------------------------------------------------------

    def memories(self, root: Path | None = None) -> list[str]:
        root = root or self.root
        return sorted(str(p.relative_to(root)) for folder in ("facts", "preferences", "decisions")
                      if (root / folder).is_dir() for p in (root / folder).glob("*.md"))

    def committed(self) -> list[str]:
        out = git(self.root, "ls-files", "-z", "--", "facts", "preferences", "decisions")
        return sorted(p for p in out.split("\x00") if p.endswith(".md"))

    def clean(self) -> list[str]:
        dirty = set(git(self.root, "status", "--porcelain", "-z", "--untracked-files=all").split("\x00"))
        dirty = {e[3:] for e in dirty if len(e) > 3}
        return [p for p in self.committed() if p not in dirty]

    def one_shot(self, step: str) -> dict:
        """A one-shot command's reads (:data:`ONE_SHOT`) in a new process: forked by a Python
        started once per World (:data:`FORKER`, vault-mem imported, no vault opened), so that the
        ~50-60 ms of CPU of a new interpreter's start and imports is paid once, not once a step;
        each process still starts with nothing of the vault in memory, only what the sidecar
        keeps."""
        if self._forker is None:
            # -I (no PYTHONPATH, no user site, no script folder on the path) imports the vault-mem
            # the interpreter has installed, which need not be the one this process imported (a
            # checkout run with PYTHONPATH, as bench_suite_cpu.py --tree/--against runs one): the
            # one-shots then ran other code, whose judgement the warm vault rightly refused as
            # another code's ("kept by other code": ('whole', 'whole') at the start). So the
            # folder holding this process's vault_mem goes first on the one-shots' path.
            here = str(Path(vault_mem.__file__).resolve().parent.parent)
            with open(self._forker_log, "ab") as err:
                self._forker = subprocess.Popen([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {here!r})\n"
                                                 + ONE_SHOT + FORKER], stdin=subprocess.PIPE,
                                                stdout=subprocess.PIPE, stderr=err, text=True,
                                                env={**os.environ, "VAULT_MEM_EMBEDDER": "none"})
        assert self._forker.stdin is not None and self._forker.stdout is not None
        self._forker.stdin.write(str(self.root) + "\n")
        self._forker.stdin.flush()
        lines = []
        while not (line := self._forker.stdout.readline()).startswith("exit ") and line:
            lines.append(line)
        stderr = self._forker_log.read_text(encoding="utf-8", errors="replace")
        assert line == "exit 0\n" and len(lines) == 1, (step, line, lines, stderr)
        return json.loads(lines[0])

    def close(self) -> None:
        """The warm vault closed, and the one-shots' parent ended (its stdin closed: its loop ends)."""
        try:
            self.warm.close()
        finally:
            if self._forker is not None:
                assert self._forker.stdin is not None
                self._forker.stdin.close()
                assert self._forker.wait(timeout=60) == 0, self._forker_log.read_text(encoding="utf-8", errors="replace")

    def key(self) -> str:
        self.n += 1
        return f"step-{self.n:03d}"

    def push_as_peer(self, message: str) -> None:
        for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", message],
                     ["pull", "-q", "--rebase", "origin", "main"], ["push", "-q", "origin", "HEAD:main"]):
            proc = run(self.peer, *args, env=PEER_ENV)
            assert proc.returncode == 0 or args[0] == "commit", (args, proc.stderr)

    def person_commits(self, message: str) -> None:
        """The person's own commit of everything in the vault, through git with vault-mem's hooks."""
        run(self.root, "add", "-A", "--", ".")
        run(self.root, "commit", "-q", "-m", message)

    # -- the changes -----------------------------------------------------------------------------

    def agent_write(self) -> str:
        self.warm.remember(self.key(), f"The staging deploy rule number {self.n}", f"Rule {self.n}.")
        return "an agent's write"

    def agent_write_elsewhere(self) -> str:
        with Vault(self.root) as other:  # another connection: its rows reach the warm one by the log
            other.remember(self.key(), f"The release train rule {self.n}", f"Train {self.n}.")
        return "an agent's write made by another process"

    def agent_rewrites_a_peers(self) -> str:
        rel = self.rng.choice([p for p in self.clean() if "peer-" in p] or self.clean())
        try:
            self.warm.remember(Path(rel).stem, "Deploys to staging: the person's own rule", "Rewritten whole.")
        except VaultMemError:
            pass
        return f"an agent's write over {rel}"

    def hand_rewrite(self) -> str:
        rel = self.rng.choice(self.memories())
        (self.root / rel).write_text(memory("The person's own words about deploys", "Nothing of the peer's."),
                                     encoding="utf-8")
        return f"a hand edit rewriting {rel}"

    def hand_keeps_a_line(self) -> str:
        rel = self.rng.choice(self.memories())
        with open(self.root / rel, "a", encoding="utf-8") as fh:
            fh.write(f"And the person's line {self.n}.\n")
        self.n += 1
        return f"a hand edit keeping {rel}'s lines"

    def hand_delete(self) -> str:
        rel = self.rng.choice(self.memories())
        (self.root / rel).unlink()
        return f"{rel} deleted by hand"

    def hand_move(self) -> str:
        rel = self.rng.choice(self.memories())
        new = f"facts/{self.key()}.md"
        os.replace(self.root / rel, self.root / new)
        return f"{rel} moved by hand to {new}"

    def hand_copies_a_peers(self) -> str:
        rel = self.rng.choice(self.memories())
        new = f"facts/{self.key()}.md"
        (self.root / new).write_bytes((self.root / rel).read_bytes())
        return f"{rel}'s text copied by hand to {new}"

    def stage_one(self) -> str:
        changed = [e[3:] for e in git(self.root, "status", "--porcelain", "-z", "--untracked-files=all").split("\x00")
                   if len(e) > 3 and e[3:].endswith(".md") and e[3:] != "INDEX.md"]
        if changed:
            run(self.root, "add", "-A", "--", self.rng.choice(changed))
        return "one change staged"

    def index_only(self) -> str:
        """A change of git's index alone, which moves what git status says of a file whose
        bytes and HEAD version stay: a committed memory taken out of the index (``git rm
        --cached``: a staged deletion), or a changed one marked assume-unchanged (git status no
        longer names it)."""
        if self.rng.random() < 0.5:
            rel = self.rng.choice(self.clean())
            run(self.root, "rm", "-q", "--cached", "--", rel)
            return f"{rel} taken out of git's index"
        changed = [e[3:] for e in git(self.root, "status", "--porcelain", "-z").split("\x00")
                   if len(e) > 3 and e[:2] == " M" and e[3:].endswith(".md") and e[3:] != "INDEX.md"]
        if not changed:
            self.hand_rewrite()
            return self.index_only()
        rel = self.rng.choice(changed)
        run(self.root, "update-index", "--assume-unchanged", "--", rel)
        return f"{rel} marked assume-unchanged"

    def person_commit(self) -> str:
        self.person_commits("the person's edits")
        return "the person's commit"

    def person_moves(self) -> str:
        rel = self.rng.choice(self.clean())
        new = f"facts/{self.key()}.md"
        run(self.root, "mv", rel, new)
        run(self.root, "commit", "-q", "-m", "moved", "--", rel, new)
        return f"the person's git mv of {rel} to {new}, committed"

    def peer_pushes(self) -> str:
        run(self.peer, "pull", "-q", "--rebase", "origin", "main", env=PEER_ENV)
        mine = self.memories(self.peer)
        for _ in range(self.rng.randint(1, 3)):
            what = self.rng.choice(["new", "edit", "delete", "copy", "move"]) if self.peer_moved else "move"
            self.peer_moved = True  # a peer's move in every sequence (its first push)
            if what == "new" or not mine:
                (self.peer / "facts" / f"peer-new-{self.key()}.md").write_text(
                    memory(f"Deploys need the peer's approval {self.n}", f"Ask the peer {self.n}."), encoding="utf-8")
            elif what == "edit":
                rel = self.rng.choice(mine)
                with open(self.peer / rel, "a", encoding="utf-8") as fh:
                    fh.write(f"The peer's added line {self.n}.\n")
                self.n += 1
            elif what == "delete":
                rel = self.rng.choice(mine)
                (self.peer / rel).unlink()
                mine.remove(rel)
            elif what == "move":  # a move (the person's text or a peer's), to another type folder too,
                # its text kept or changed in the same commit: the walk follows a peer's move (issue 23)
                rel = self.rng.choice(mine)
                folder = self.rng.choice(["facts", "preferences", "decisions"])
                new = f"{folder}/peer-moved-{self.key()}.md"
                (self.peer / folder).mkdir(exist_ok=True)
                os.replace(self.peer / rel, self.peer / new)
                if self.rng.random() < 0.5:
                    with open(self.peer / new, "a", encoding="utf-8") as fh:
                        fh.write(f"The peer's line with its move {self.n}.\n")
                mine.remove(rel)
                mine.append(new)
            else:  # a copy of a text (the person's, or another peer's memory) under a new key
                rel = self.rng.choice(mine)
                (self.peer / "facts" / f"peer-copy-{self.key()}.md").write_bytes((self.peer / rel).read_bytes())
        self.push_as_peer("the peer's changes")
        return "a peer's push (not taken yet)"

    def sync(self) -> str:
        cli("--vault", str(self.root), "sync")
        settle(self.root)
        return "vault-mem sync"

    def git_pull(self) -> str:
        self.person_commits("before the pull")
        if run(self.root, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main").returncode:
            settle(self.root)
        return "a plain git pull"

    def forget(self) -> str:
        rel = self.rng.choice(self.clean())
        try:
            self.warm.forget(Path(rel).stem)
        except VaultMemError:
            pass
        return f"vault-mem forget of {rel}"

    def undo(self) -> str:
        written = [p for p in self.clean() if Path(p).stem.startswith("step-")]
        key = Path(self.rng.choice(written)).stem if written else "deploy-window"
        r = cli("--vault", str(self.root), "undo", key)
        return f"vault-mem undo {key} ({r.returncode})"

    def git_pull_autostash(self) -> str:
        if run(self.root, "pull", "-q", "--rebase", "--autostash", "origin", "main").returncode:
            settle(self.root)
        return "git pull --rebase --autostash over the person's edits"

    def git_revert(self) -> str:
        self.person_commits("before the revert")
        parents = git(self.root, "rev-list", "--parents", "-n1", "HEAD").split()
        if len(parents) == 2 and run(self.root, "revert", "--no-edit", "HEAD").returncode:
            settle(self.root)
        return "the person's git revert of HEAD"

    def force_push(self) -> str:
        run(self.peer, "pull", "-q", "--rebase", "origin", "main", env=PEER_ENV)
        mine = self.memories(self.peer)
        rel = self.rng.choice(mine)
        with open(self.peer / rel, "a", encoding="utf-8") as fh:
            fh.write("Rewritten history.\n")
        run(self.peer, "add", "-A", env=PEER_ENV)
        run(self.peer, "commit", "-q", "--amend", "--no-verify", "--no-edit", env=PEER_ENV)
        assert run(self.peer, "push", "-q", "--force", "origin", "HEAD:main", env=PEER_ENV).returncode == 0
        run(self.root, "fetch", "-q", "origin")
        run(self.root, "reset", "-q", "--hard", "origin/main")
        return "a peer's force-push, taken by git reset --hard"

    def approve(self) -> str:
        if not self.approved:
            approve_authors(self.root, [PEER_EMAIL])
        else:  # withdrawn by hand, as a person edits the file
            path = Path(trust_file())
            path.write_text(path.read_text(encoding="utf-8").replace(f'"{PEER_EMAIL}"', '"nobody@example.invalid"'),
                            encoding="utf-8")
        self.approved = not self.approved
        return "the peer approved" if self.approved else "the approval withdrawn"

    CHANGES = ("agent_write", "agent_write_elsewhere", "agent_rewrites_a_peers", "hand_rewrite", "hand_keeps_a_line",
               "hand_delete", "hand_move", "hand_copies_a_peers", "stage_one", "index_only", "person_commit", "person_moves",
               "peer_pushes", "sync", "git_pull", "git_pull_autostash", "forget", "undo", "git_revert", "force_push", "approve")

    # -- the comparison --------------------------------------------------------------------------

    def compare(self, step: str, *, warm: bool = True) -> tuple[str | None, str]:
        """A one-shot process's answers (a new process, as the prompt hook or ``vault-mem
        recall`` without a daemon: the judgement the sidecar keeps brought along) and the warm
        vault's (its own judgement brought along; ``warm`` False: not asked this step, so its
        next read brings two steps along) against a fresh vault's that keeps nothing (the whole
        judgement); returns how the warm one and the one-shot judged."""
        one = self.one_shot(step)
        how = None
        if warm:
            self.warm.reconcile()
            text, _legend, peers = self.warm.render_trusted_index()
            how = self.warm._kept_peers.last.how
            self.warm_why = self.warm._kept_peers.last.why
            hook = [h.path for h in self.warm.recall("deploys to staging", k=8, trusted_only=True).hits]
        with Vault(self.root) as fresh:
            fresh._kept_peers = KeptPeers(stored=False)  # the whole judgement, as main made it in every process
            fresh.reconcile()
            whole = authors.peer_memories(fresh.ws, fresh.sidecar)
            fresh_text, _legend, fresh_peers = fresh.render_trusted_index()
            assert fresh._kept_peers.last.how == "whole"
            fresh_hook = [h.path for h in fresh.recall("deploys to staging", k=8, trusted_only=True).hits]
        assert whole == dict(fresh_peers), step
        assert one["peers"] == {rel: who.email for rel, who in whole.items()}, (step, set(one["peers"]) ^ set(whole))
        assert one["text"] == fresh_text, step
        assert one["hook"] == fresh_hook, step
        if warm:
            assert dict(peers) == whole, (step, set(peers) ^ set(whole))
            assert text == fresh_text, step
            assert hook == fresh_hook, step
        self.why = one["why"]
        return how, one["how"]


#: a one-shot command's reads, in a process of its own (keyword-only, as the hook without a daemon)
ONE_SHOT = """
import json, os, sys
from vault_mem import Vault

def one_shot(root):
    with Vault(root) as vault:
        vault.reconcile()
        text, _legend, peers = vault.render_trusted_index()
        how = vault._kept_peers.last
        hook = [h.path for h in vault.recall("deploys to staging", k=8, trusted_only=True).hits]
    return {"how": how.how, "why": how.why, "peers": {rel: who.email for rel, who in peers.items()}, "text": text, "hook": hook}
"""
#: the one-shots' parent: for each vault root read from stdin, a new process (a fork of this one,
#: which imported vault-mem and opened nothing) prints :data:`ONE_SHOT`'s answers as one JSON line
#: and ends as a process ends (its exit handlers run); then this one prints ``exit STATUS``
FORKER = """
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        print(json.dumps(one_shot(line.rstrip("\\n"))), flush=True)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    print(f"exit {os.waitstatus_to_exitcode(status)}", flush=True)
"""


#: the sequences run (``VAULT_MEM_JUDGE_SEEDS=3,4,5,6`` runs others: each ~30 s)
SEEDS = [int(s) for s in os.environ.get("VAULT_MEM_JUDGE_SEEDS", "1,2").split(",") if s.strip()]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_judgement_brought_along_each_change_is_the_whole_judgement(tmp_path, seed) -> None:
    """After every step of a random sequence (every kind of change at least once, then at
    random), the warm vault's judgement equals a fresh one's, and most steps were judged by the
    paths they changed, not whole."""
    rng = random.Random(seed)
    asks = random.Random(seed + 1000)  # which steps the warm vault reads (the others: a one-shot process alone)
    world = World(tmp_path, rng)
    try:
        start = world.compare("start")
        # the one-shot judged whole and kept it; the warm vault brought that along
        assert start == ("stored", "whole"), (start, world.warm_why, world.why)
        steps = list(World.CHANGES)
        rng.shuffle(steps)
        steps += [rng.choice(World.CHANGES) for _ in range(12)]
        hows, shots = [], []
        for i, name in enumerate(steps):
            approved = world.approved
            step = f"{i}: " + getattr(world, name)()
            warm = asks.random() < 0.75
            how, shot = world.compare(step, warm=warm)
            shots.append((step, shot, approved or world.approved, world.why))
            if warm:
                hows.append((step, how, world.warm._kept_peers.last.paths, approved or world.approved))
        # brought along for the changes made while the peer's memories are many (approved, they
        # are none: the whole judgement of a few candidates is its own rule; after an approval,
        # given or withdrawn, the whole judgement by design)
        asked = [h for h in hows if not h[3] and h[1] != "kept"]
        changed = [h for h in asked if h[1] == "changed"]
        assert len(changed) >= len(asked) * 3 // 4, hows
        # each judged by the paths it touched: fewer than half the memories, but for a force-push
        # of the peer's first commit (the one that added them all: every path's history moved)
        assert all(n < N_PEER // 2 for s, _h, n, _a in changed if "force-push" not in s), hows
        # a one-shot process brings along the judgement the sidecar keeps as often
        shot = [s for s in shots if not s[2]]
        assert len([s for s in shot if s[1] == "stored"]) >= len(shot) * 3 // 4, shots
    finally:
        world.close()


@pytest.mark.parametrize("change", ["agent_write", "agent_write_elsewhere", "hand_keeps_a_line", "sync"])
def test_one_change_judges_again_what_it_changed_not_every_memory(tmp_path, monkeypatch, change) -> None:
    """The first read after one change asks the standing of a handful of commits, not of every
    peer memory's (each memory's judgement asks it: ~1.8 s of CPU at 100k on main, where any
    change made the next read judge the whole vault again), and answers as a fresh vault does."""
    world = World(tmp_path, random.Random(3))
    try:
        world.compare("start")
        if change == "sync":
            world.peer_pushes()
        getattr(world, change)()
        calls = count_standing(monkeypatch)
        world.warm.reconcile()
        peers = world.warm.render_trusted_index()[2]
        assert len(calls) < N_PEER // 4, (change, len(calls))
        with Vault(world.root) as fresh:
            assert dict(peers) == authors.peer_memories(fresh.ws, fresh.sidecar)
    finally:
        world.close()


def test_a_change_of_gits_index_alone_is_judged_as_the_whole_judgement_judges_it(tmp_path) -> None:
    """What git status says of a file moves with its index entry alone: a peer's memory the
    person rewrote by hand, then marked assume-unchanged (git status no longer names it: the
    whole judgement judges it by its committed author again), and a peer's memory taken out of
    the index (a staged deletion: a change not committed). The warm vault asks git status again
    of the files whose index entry moved, and answers as a fresh vault does."""
    world = World(tmp_path, random.Random(4))
    try:
        rewritten, taken_out = "facts/peer-001.md", "facts/peer-002.md"
        (world.root / rewritten).write_text(memory("The person's own words", "Nothing of the peer's."), encoding="utf-8")
        world.compare("a peer's memory rewritten by hand")
        _text, _legend, peers = world.warm.render_trusted_index()
        assert rewritten not in peers
        run(world.root, "update-index", "--assume-unchanged", "--", rewritten)
        assert world.compare("marked assume-unchanged")[0] == "changed"
        assert rewritten in world.warm.render_trusted_index()[2]
        run(world.root, "rm", "-q", "--cached", "--", taken_out)
        assert world.compare("taken out of the index")[0] == "changed"
        run(world.root, "update-index", "--no-assume-unchanged", "--", rewritten)
        assert world.compare("the mark taken off")[0] == "changed"
        assert rewritten not in world.warm.render_trusted_index()[2]
    finally:
        world.close()


def test_the_log_names_every_row_another_process_changed_and_says_when_it_no_longer_reaches_back(tmp_path) -> None:
    """The judgement's log (``judge_log``) is kept by the sidecar's triggers, so a write made
    by another process (its own connection) is named to this one; once more entries than it
    keeps came since a reader's last look, the reader is told it cannot know (and judges whole)."""
    from vault_mem.index import authors as rows
    from vault_mem.index.db import JUDGE_LOG_KEPT, JUDGE_LOG_PRUNED_EVERY

    vault = new_vault(tmp_path / "v")
    try:
        db = vault.sidecar.db
        seq = rows.judge_log_head(db)
        with Vault(vault.root) as other:
            other.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
        newest, paths, _blobs = rows.judge_log_since(db, seq)
        assert newest > seq and "facts/deploy-window.md" in paths
        assert rows.judge_log_since(db, newest) == (newest, set(), set())
        with db.write():
            db.executemany("INSERT INTO judge_log(path) VALUES (?)",
                           [(f"x{i}",) for i in range(JUDGE_LOG_KEPT + JUDGE_LOG_PRUNED_EVERY)])
        assert rows.judge_log_since(db, newest) is None
        # the oldest go by the batch: the newest KEPT stay, and fewer than a batch more
        kept = db.execute("SELECT count(*), max(seq) - min(seq) + 1 FROM judge_log").fetchone()
        assert JUDGE_LOG_KEPT <= kept[0] == kept[1] < JUDGE_LOG_KEPT + JUDGE_LOG_PRUNED_EVERY
    finally:
        vault.close()


def test_a_move_dropped_by_another_process_while_a_judgement_is_made_is_judged_again(tmp_path, monkeypatch) -> None:
    """Review of oneshot29: the lineage and the kept moves a judgement is compared with next time
    were read after the judgement was made, so a change of them landing between (another
    process's refresh: a peer's move forgotten past its bound, rows brought to a new HEAD) was
    recorded as what the judgement was made from, and no later read judged those paths again.
    Here another process drops the person's move of a peer's memory (edited on the way, so the
    text is the person's and only the move makes it the peer's) right after the warm vault's
    judgement; the warm vault's next judgement must equal the whole one."""
    world = World(tmp_path, random.Random(12))
    root, warm = world.root, world.warm
    old, new = "facts/peer-003.md", "facts/moved-here.md"
    text = (root / old).read_text()
    run(root, "mv", old, new)
    (root / new).write_text(text.replace("Peer note 3", "Peer note three, kept by the person"))
    run(root, "commit", "-q", "-m", "moved and edited", "--", old, new)
    warm.reconcile()
    assert new in dict(warm.render_trusted_index()[2])  # the move followed: the peer's lines kept
    with Vault(root) as fresh:
        assert new in index_rows.moved_from(fresh.sidecar.db)
    judgement = authors.peer_judgement
    dropped: list[str] = []

    def then_another_process(*args, **kwargs):
        out = judgement(*args, **kwargs)
        if not dropped:  # another process's write, between the judgement and what it was made from
            subprocess.run([sys.executable, "-c", "import sys; from vault_mem import Vault; v = Vault(sys.argv[1]); "
                            "v.sidecar.db.set_meta('peer_moved_from', None); v.close()", str(root)], check=True)
            dropped.append(new)
        return out

    monkeypatch.setattr(authors, "peer_judgement", then_another_process)
    # a hand edit elsewhere (no commit made here, which would judge every lineage path again):
    # the warm vault judges again what it touched
    (root / "facts/peer-010.md").write_text(memory("The person's own note", "Mine."))
    warm.reconcile()
    warm.render_trusted_index()
    assert dropped  # the wrapper passes through from now on
    (root / "facts/peer-011.md").write_text(memory("Another note of the person's", "Mine too."))
    warm.reconcile()
    found = dict(warm.render_trusted_index()[2])
    with Vault(root) as fresh:
        fresh._kept_peers = KeptPeers(stored=False)
        fresh.reconcile()
        assert new not in index_rows.moved_from(fresh.sidecar.db)
        whole = dict(fresh.render_trusted_index()[2])
    assert warm._kept_peers.last.how == "changed"
    assert found == whole, set(found) ^ set(whole)
    warm.close()
