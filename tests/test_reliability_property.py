"""Property test (hypothesis, rule-based): random sequences of agent writes and outside changes
keep the vault's invariants.

Steps: ``remember`` / ``forget`` / ``undo`` through the API; a person's edit, new file, broken
file and delete straight on disk; a person's ``git commit -a``; ``git revert HEAD``; a reindex.
After every step:

- every agent write that succeeded is exactly one new commit on top of the previous HEAD, by the
  agent, with its key's trailer, holding only its memory file(s) and INDEX.md, and the file holds
  what was asked; a refused one changed neither HEAD nor the files;
- the sidecar equals a fresh rebuild from the files (``doctor() == []``) and INDEX.md on disk
  equals the one generated from the files: at once when no outside change happened since the
  last reconcile (the write path alone keeps them exact), else after the reconcile that the next
  read does;
- the agent's commits in history are exactly the agent writes that succeeded.

Bounded (derandomized; 12 runs of up to 12 steps) to keep it near 20 s.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import new_vault
from stress import sized
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

KEYS = ("alpha", "beta", "gamma", "delta.v2")
TYPES = ("fact", "preference", "decision", "note")
FOLDERS = {"fact": "facts", "preference": "preferences", "decision": "decisions", "note": "notes"}
AGENT = "vault-mem agent"
STATS = {"runs": 0, "steps": 0, "agent_writes": 0, "refused": 0, "outside_changes": 0, "invariant_checks": 0}

words = st.sampled_from(["kettle", "Helix", "postgres", "deploy", "the", "quiet", "Ünïcode", "42", "ß", "→"])
descriptions = st.lists(words, min_size=1, max_size=6).map(" ".join)
bodies = st.one_of(
    st.just(""),
    st.lists(
        st.one_of(words, st.sampled_from(["\n", "\n\n", "---", "- item", "# Heading", "  "])), max_size=12
    ).map(" ".join),
)

REMEMBER_ARGS = {
    "key": st.sampled_from(KEYS),
    "desc": descriptions,
    "body": bodies,
    "type_": st.sampled_from(TYPES),
}


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if check:
        assert proc.returncode == 0, f"git {args}: {proc.stderr}"
    return proc


class VaultMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()

        self.tmp = Path(tempfile.mkdtemp(prefix="vault-mem-prop-"))
        self.vault = new_vault(self.tmp / "vault")
        self.root = self.vault.root
        self.outside_dirty = False
        self.agent_writes = 0
        STATS["runs"] += 1

    def teardown(self) -> None:
        self.vault.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers -------------------------------------------------------------------------------
    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").stdout.strip()

    def path_of(self, key: str) -> Path | None:
        for folder in FOLDERS.values():
            p = self.root / folder / f"{key}.md"
            if p.exists():
                return p
        return None

    def files(self) -> dict[str, bytes]:
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for folder in FOLDERS.values()
            for p in sorted((self.root / folder).glob("*.md"))
        }

    def generated_at_head(self) -> str:
        """INDEX.md as generated from a clean checkout of HEAD (no uncommitted file in it)."""
        from vault_mem import Vault

        clone = Path(tempfile.mkdtemp(prefix="vault-mem-prop-head-")) / "vault"
        try:
            git(self.root, "clone", "-q", "--no-hardlinks", str(self.root), str(clone))
            with Vault(clone) as at_head:
                at_head.reconcile(force=True)
                return at_head.render_index()
        finally:
            shutil.rmtree(clone.parent, ignore_errors=True)

    def agent_write(self, key: str, call) -> None:
        """Run an agent write; check it is one commit or a clean refusal."""
        from vault_mem.errors import VaultMemError

        STATS["steps"] += 1
        before_head, before_files = self.head(), self.files()
        try:
            result = call()
        except VaultMemError as exc:
            assert str(exc).strip()
            assert self.head() == before_head, "a refused write moved HEAD"
            assert self.files() == before_files, "a refused write changed a file"
            STATS["refused"] += 1
            return
        if result.action == "unchanged":
            assert result.commit is None and self.head() == before_head
            return
        assert result.commit == self.head(), "the write's commit is not HEAD"
        assert git(self.root, "rev-parse", "HEAD^").stdout.strip() == before_head, "not one commit"
        msg = git(self.root, "log", "-1", "--format=%an%n%B").stdout
        assert msg.startswith(AGENT + "\n") and f"Memory-Key: {result.key}\n" in msg, msg
        changed = set(
            git(self.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").stdout.split()
        )
        allowed = {f"{folder}/{result.key}.md" for folder in FOLDERS.values()} | {"INDEX.md"}
        assert changed and changed <= allowed, changed
        # the commit holds exactly what is on disk for those paths; INDEX.md too while no memory
        # file differs from HEAD: else the work tree's INDEX.md reflects the person's uncommitted
        # files and the committed one is generated from the committed tree alone (DESIGN §3), so
        # it must equal what a clean checkout of HEAD generates
        dirty = git(self.root, "status", "--porcelain", "--untracked-files=all", "--", *FOLDERS.values()).stdout.strip()
        for rel in changed:
            p = self.root / rel
            shown = git(self.root, "cat-file", "-p", f"HEAD:{rel}", check=False)
            if rel == "INDEX.md" and dirty:
                assert shown.returncode == 0 and shown.stdout == self.generated_at_head(), rel
            elif p.exists():
                assert shown.returncode == 0 and shown.stdout.encode() == p.read_bytes(), rel
            else:
                assert shown.returncode != 0, rel
        self.agent_writes += 1
        STATS["agent_writes"] += 1

    # -- agent writes ----------------------------------------------------------------------------
    def _remember(self, key, desc, body, type_):
        def call():
            r = self.vault.remember(key, desc, body, type=type_)
            mem = self.vault.read_memory(r.path)
            assert mem.description == desc.strip() and mem.body.rstrip("\n") == body.rstrip("\n")
            return r

        self.agent_write(key, call)

    # three rules for one operation: agent writes are the point, so they get drawn most often
    remember = rule(**REMEMBER_ARGS)(_remember)
    remember_again = rule(**REMEMBER_ARGS)(_remember)
    remember_once_more = rule(**REMEMBER_ARGS)(_remember)

    @rule(key=st.sampled_from(KEYS))
    def forget(self, key):
        self.agent_write(key, lambda: self.vault.forget(key))

    @rule(key=st.sampled_from(KEYS))
    def undo(self, key):
        self.agent_write(key, lambda: self.vault.undo(key))

    # -- a person and git --------------------------------------------------------------------------
    @rule(key=st.sampled_from(KEYS), desc=descriptions, type_=st.sampled_from(TYPES), broken=st.booleans())
    def outside_edit(self, key, desc, type_, broken):
        """An editor's save: the memory's file (or a new one), sometimes left unparsable."""
        p = self.path_of(key) or self.root / FOLDERS[type_] / f"{key}.md"
        text = (
            "---\ndescription: [unclosed\n---\n"
            if broken
            else f"---\ndescription: {desc} (by hand)\nreviewer: Ada\n---\n\nEdited by a person.\n"
        )
        p.write_text(text, encoding="utf-8")
        self.outside_dirty = True
        STATS["outside_changes"] += 1
        STATS["steps"] += 1

    @rule(key=st.sampled_from(KEYS))
    def outside_delete(self, key):
        p = self.path_of(key)
        if p is not None:
            p.unlink()
            self.outside_dirty = True
            STATS["outside_changes"] += 1
        STATS["steps"] += 1

    @rule()
    def person_commits(self):
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", "person: my edits", check=False)  # nothing to commit is fine
        STATS["steps"] += 1

    @precondition(lambda self: self.agent_writes > 0)
    @rule()
    def git_revert_head(self):
        proc = git(self.root, "revert", "--no-edit", "HEAD", check=False)
        if proc.returncode != 0:  # conflicts or local changes in the way: leave no operation behind
            git(self.root, "revert", "--abort", check=False)
        else:
            self.outside_dirty = True
            STATS["outside_changes"] += 1
        assert not (self.root / ".git/REVERT_HEAD").exists()
        STATS["steps"] += 1

    @rule()
    def reindex(self):
        with self.vault.lock:
            self.vault.sidecar.rebuild()
            self.vault.write_index()
        self.outside_dirty = False
        STATS["steps"] += 1

    # -- invariants ------------------------------------------------------------------------------
    @invariant()
    def index_equals_fresh_rebuild_and_index_md_is_generated(self):
        if self.outside_dirty:
            self.vault.reconcile(force=True)  # what the next read command does first
            self.outside_dirty = False
        assert self.vault.sidecar.doctor() == []
        on_disk = (self.root / "INDEX.md").read_text(encoding="utf-8")
        assert on_disk == self.vault.render_index()
        STATS["invariant_checks"] += 1

    @invariant()
    def agent_commits_are_the_agent_writes(self):
        n = int(git(self.root, "rev-list", "--count", f"--author={AGENT}", "HEAD").stdout)
        assert n == 1 + self.agent_writes  # 1: the init commit


MACHINE_SETTINGS = settings(
    # 12 runs at full size (RELIABILITY.md's figures), 6 everyday: derandomized, every run of the
    # suite draws the same sequences, so the everyday suite repeats its 6 and the full run adds 6
    # more; the one failure on record (7defe5a) came from a draw that timing changed, and is a
    # test of its own below
    max_examples=sized(12, 6),
    stateful_step_count=12,
    deadline=None,
    derandomize=True,
    database=None,
    # no shrinking: each step costs git and SQLite work, and shrinking a failure took minutes;
    # a failing run prints its whole (at most 12-step) sequence, which is short enough to read
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.slow
def test_vault_invariants_hold_over_random_steps(record_property):
    """The state machine above, then its counts for bench/reliability_figures.py."""
    for name in STATS:
        STATS[name] = 0
    run_state_machine_as_test(VaultMachine, settings=MACHINE_SETTINGS)
    for name, value in STATS.items():
        record_property(name, value)


def test_an_agent_write_beside_a_persons_uncommitted_memory_commits_index_md_of_the_committed_tree():
    """The sequence a CI run drew (the random steps' draws follow timing): a person's uncommitted
    memory is listed in the work tree's INDEX.md, never in the agent's commit of INDEX.md."""
    m = VaultMachine()
    try:
        for step in (lambda: m.forget("gamma"), lambda: m.undo("gamma"),
                     lambda: m._remember("delta.v2", "Ünïcode Ünïcode", "", "preference"),
                     lambda: m.outside_edit("gamma", "postgres", "decision", False),
                     lambda: m._remember("delta.v2", "42 Ünïcode Ünïcode the 42 quiet", "# Heading", "preference")):
            step()
            m.agent_commits_are_the_agent_writes()
            m.index_equals_fresh_rebuild_and_index_md_is_generated()
        committed = git(m.root, "cat-file", "-p", "HEAD:INDEX.md").stdout
        assert "gamma" not in committed and "gamma: postgres (by hand)" in (m.root / "INDEX.md").read_text(encoding="utf-8")
    finally:
        m.teardown()


def test_doctor_accepts_a_kept_last_good_version(tmp_path):
    v = new_vault(tmp_path / "vault")
    try:
        v.remember("beta", "A good first version", "body")
        (v.root / "facts/beta.md").write_text("---\ndescription: [unclosed\n---\n")
        v.reconcile(force=True)
        assert [p.path for p in v.sidecar.problems()] == ["facts/beta.md"]
        assert v.sidecar.doctor() == []
    finally:
        v.close()
