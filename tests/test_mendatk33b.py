"""The review of mendatk33 (mendatk33b): the one giver rule and its record.

Real git repositories; this machine's vault driven through the real CLI (:func:`conftest.pair`) or,
for the record itself, plain git and :mod:`vault_mem.store.history` on a repository whose
``local-commits`` record names the person's commits.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from test_mendatk33 import AGENT_HOOKS, SETTINGS, held_line, peer_git

from conftest import git
from vault_mem.store import history, provenance
from vault_mem.store.git import GitRepo

PEER = {"GIT_AUTHOR_EMAIL": "mallory@x", "GIT_COMMITTER_EMAIL": "mallory@x"}


def _git(cwd: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})}
    ).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    d = tmp_path / "r"
    d.mkdir()
    _git(d, "init", "-q", "-b", "main")
    _git(d, "config", "user.email", "me@x")
    _git(d, "config", "user.name", "me")
    return d


def _commit(d: Path, files: dict[str, str], msg: str, env: dict | None = None) -> str:
    for name, text in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)
    _git(d, "add", "-A")
    _git(d, "commit", "-q", "-m", msg, env=env)
    return _git(d, "rev-parse", "HEAD")


def _made_here(d: Path, commits: list[str]) -> None:
    (d / ".git/vault-mem").mkdir(mode=0o700, exist_ok=True)
    (d / ".git/vault-mem/local-commits").write_text("".join(c + "\n" for c in commits) + "seeded\n")


def _record(d: Path) -> str:
    path = d / ".git/vault-mem" / provenance.GIVEN_ELSEWHERE
    return path.read_text() if path.exists() else ""


# 01: an octopus merge's put-back (its --octopus merge base, older than the pair's, hid a parent's change)


def test_a_peers_octopus_put_back_of_the_persons_deleted_hooks_is_held(pair):
    _bare, a, peer = pair
    base = git(a, "rev-parse", "HEAD").strip()
    (a / ".claude").mkdir()
    (a / SETTINGS).write_text(AGENT_HOOKS)
    git(a, "add", SETTINGS)
    git(a, "commit", "-q", "-m", "my hooks")
    old = git(a, "rev-parse", "HEAD").strip()
    git(a, "rm", "-q", SETTINGS)
    git(a, "commit", "-q", "-m", "no hooks after all")
    git(a, "push", "-q", "origin", "main")
    peer_git(peer, "pull", "-q", "origin", "main")
    peer_git(peer, "checkout", "-q", old, "--", SETTINGS)
    tree = peer_git(peer, "write-tree").strip()
    m = peer_git(peer, "commit-tree", tree, "-p", "HEAD", "-p", old, "-p", base, "-m", "Merge").strip()
    peer_git(peer, "reset", "-q", "--hard", m)
    peer_git(peer, "push", "-q", "origin", "main")
    git(a, "fetch", "-q", "origin")
    git(a, "checkout", "origin/main", "--", SETTINGS)
    git(a, "commit", "-q", "-m", "take the team's settings")
    assert SETTINGS in held_line(a)


def test_a_peers_octopus_put_back_of_the_persons_older_vault_toml_is_seen_elsewhere(tmp_path):
    d = _repo(tmp_path)
    c0 = _commit(d, {"vault.toml": "v = 0\n"}, "v0")
    c1 = _commit(d, {"vault.toml": "v = 1\n"}, "v1")
    v1 = _git(d, "rev-parse", "HEAD:vault.toml")
    c2 = _commit(d, {"vault.toml": "v = 0\n"}, "back to v0")
    _made_here(d, [c0, c1, c2])
    m = _git(d, "commit-tree", f"{c1}^{{tree}}", "-p", c2, "-p", c1, "-p", c0, "-m", "Merge", env=PEER)
    _git(d, "update-ref", "refs/remotes/origin/main", m)
    assert history.seen_elsewhere(GitRepo(d), v1, "")


# 02: the cache the code before mendatk33 wrote kept what it found in "holders"


def test_a_holder_the_old_cache_named_stays_seen_elsewhere_after_the_upgrade(tmp_path):
    d = _repo(tmp_path)
    c1 = _commit(d, {"vault.toml": "v = 1\n"}, "v1")
    v1 = _git(d, "rev-parse", "HEAD:vault.toml")
    c2 = _commit(d, {"vault.toml": "v = 2\n"}, "v2")
    _git(d, "checkout", "-q", "-b", "peer")
    p = _commit(d, {"vault.toml": "v = 1\n"}, "put back", env=PEER)
    _git(d, "checkout", "-q", "main")
    _made_here(d, [c1, c2])
    tips = history.known_tips(GitRepo(d))
    (d / ".git/vault-mem" / history.SEEN_ELSEWHERE).write_text(
        json.dumps({f"\0{v1}": {"walked": tips, "holders": [p]}})
    )
    assert history.seen_elsewhere(GitRepo(d), v1, "")
    _git(d, "branch", "-q", "-D", "peer")  # whatever refs go, what was found stays named
    _commit(d, {"x.md": "x\n"}, "later")
    assert history.seen_elsewhere(GitRepo(d), v1, "")
    assert p in _record(d)


# 03: a merge counted as giving only because past _MOST_BASES lookups is never written down


def test_a_giver_guessed_past_the_cap_of_merge_bases_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(history, "_MOST_BASES", 1)
    d = _repo(tmp_path)
    base = _commit(d, {SETTINGS: "{}\n"}, "base")
    mine = _commit(d, {SETTINGS: '{"permissions": {}}\n'}, "mine")
    blob = _git(d, "rev-parse", f"HEAD:{SETTINGS}")
    _git(d, "checkout", "-q", "-b", "peer", base)
    for i in range(3):  # the person's own clean pulls of a peer line that keeps the old file
        _commit(d, {f"p{i}.md": f"{i}\n"}, f"p{i}", env=PEER)
        _git(d, "checkout", "-q", "main")
        _git(d, "merge", "-q", "--no-edit", "peer")
        _git(d, "checkout", "-q", "peer")
    _git(d, "checkout", "-q", "main")
    _made_here(d, [base, mine])
    assert history.given_elsewhere(GitRepo(d), {SETTINGS: blob}) == {SETTINGS}  # this walk: the safe side
    assert _record(d) == ""
    monkeypatch.setattr(history, "_MOST_BASES", 64)
    assert history.given_elsewhere(GitRepo(d), {SETTINGS: blob}) == set()


# 04: the record's size


def test_a_peer_commit_naming_the_bytes_at_many_paths_adds_one_line(tmp_path):
    d = _repo(tmp_path)
    c1 = _commit(d, {"vault.toml": "v = 1\n"}, "v1")
    v1 = _git(d, "rev-parse", "HEAD:vault.toml")
    c2 = _commit(d, {"vault.toml": "v = 2\n"}, "v2")
    _made_here(d, [c1, c2])
    _commit(d, {"vault.toml": "v = 1\n", **{f"m/f{i}.md": "v = 1\n" for i in range(200)}}, "many", env=PEER)
    assert history.seen_elsewhere(GitRepo(d), v1, "")
    assert len(_record(d).splitlines()) == 1


def test_a_torn_line_of_the_record_is_not_joined_to_the_next(tmp_path):
    common = tmp_path / "git"
    (common / "vault-mem").mkdir(parents=True, mode=0o700)
    (common / "vault-mem" / provenance.GIVEN_ELSEWHERE).write_bytes(b"a" * 40 + b" " + b"b" * 20)
    provenance.record_given(common, [("c" * 40, SETTINGS, "d" * 40)])
    assert provenance.given_recorded(common) == [("c" * 40, SETTINGS, "d" * 40)]


def test_a_record_past_its_cap_holds_every_file(tmp_path):
    d = _repo(tmp_path)
    c1 = _commit(d, {SETTINGS: "{}\n"}, "mine")
    blob = _git(d, "rev-parse", f"HEAD:{SETTINGS}")
    _made_here(d, [c1])
    line = f"{'e' * 40} {'f' * 40} {json.dumps('x' * 200)}\n"
    (d / ".git/vault-mem" / provenance.GIVEN_ELSEWHERE).write_text(
        line * (provenance._GIVEN_MAX_BYTES // len(line) + 1)
    )
    assert history.given_elsewhere(GitRepo(d), {SETTINGS: blob}) == {SETTINGS}
    assert history.seen_elsewhere(GitRepo(d), blob, "")


def test_the_record_keeps_two_commits_per_path_and_bytes(tmp_path):
    common = tmp_path / "git"
    provenance.record_given(common, [(f"{i:040x}", SETTINGS, "d" * 40) for i in range(100)])
    assert len(provenance.given_recorded(common)) == provenance._GIVERS_KEPT
