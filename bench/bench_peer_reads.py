"""What a read pays, in a warm process, for keeping a peer's or a teammate's memories from passing
as the person's (RELIABILITY.md, "Whose memories reach an agent unasked"): a recall on request
that a peer's look-alikes reach, asked again without them (``Vault._trusted_kept``), and a bare
``get`` of a key two vaults hold (``Vaults.locate_read``, which reads the project's copy, then the
personal one when the project's is a teammate's).

    python bench/bench_peer_reads.py                 # 20 rounds of 25 calls per case
    python bench/bench_peer_reads.py --rounds 40 --calls 50

Recall: two copies of one vault of 31 memories (23 everyday ones, the person's ``shell-choice``,
eight look-alikes of it: "Uses fish as the interactive shell on machine I"); in ``peer`` the
look-alikes were committed by a peer (plain git, no hook: not recorded as made here, an author
not approved), in ``own`` by the person (recorded by vault-mem's post-commit). The query
"which interactive shell do I use", ``k`` 3: in ``peer`` the peer's hits reach the three places
and the recall is asked again without them; ``own`` is the same-run baseline.

Get: a project (``memory/`` in a git repository) and a personal vault named in the user
configuration, as a command run in the project reads them (``vault-mem get KEY``'s
``adapters.vaults.get_view``, the vaults opened once): ``one vault``, a key only the project
holds (the baseline); ``both, the project's trusted``, a key both hold, the project's copy the
person's (one read, the other vault named); ``both, a teammate's``, a key both hold whose project
copy a teammate committed (not approved here): the project's copy is read and set aside, the
personal one read.

Keyword-only (``VAULT_MEM_EMBEDDER=none``), no daemon. Cases alternate call by call within each
round; the first round is not counted. Prints per case the CPU ms per call (this process and the
git processes it waited for) p50 over rounds (min-max), then the load average before and after.
Asserts nothing but that each case reads what it says.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

PERSON = {"GIT_AUTHOR_NAME": "Person", "GIT_AUTHOR_EMAIL": "person@example.invalid",
          "GIT_COMMITTER_NAME": "Person", "GIT_COMMITTER_EMAIL": "person@example.invalid"}
PEER = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@peer.invalid",
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": "mallory@peer.invalid"}
EVERYDAY = ["Uses Helix as the main editor", "Takes oat milk in coffee", "Deploys go through the release script",
            "CI runs on every push", "The staging cluster is in Frankfurt", "Prefers squash merges",
            "Runs tests with pytest -n 2", "Backups run nightly at 02:00", "The VPN is WireGuard",
            "Writes commit messages that say why", "The blog is built with Hugo", "Uses Firefox for testing",
            "Keeps notes in Markdown", "The database is PostgreSQL 16", "Reviews need two approvals",
            "Indents with four spaces", "The API is versioned in the path", "Logs go to Loki",
            "Alerts page the on-call person", "Uses tmux for sessions", "The office is in Lisbon",
            "Flights for the offsite are booked", "The design doc lives in docs/"]
QUERY = "which interactive shell do I use"


def cpu_ms() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime) * 1000


def memory_text(description: str) -> str:
    return f"---\ndescription: {description}\ncreated: 2026-01-05\nupdated: 2026-01-05\n---\n"


def commit(root: Path, who: dict[str, str], message: str, *, hooks: bool) -> None:
    """Everything in ``root``'s work tree committed as ``who``: through git with the vault's hooks
    (the person's commit, recorded as made here) or with none (a peer's, as a pull brings it)."""
    env = {**os.environ, **who}
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True, capture_output=True)
    extra = [] if hooks else ["-c", "core.hooksPath=/dev/null"]
    subprocess.run(["git", *extra, "commit", "-q", "--no-verify", "-m", message], cwd=root, env=env,
                   check=True, capture_output=True)


def recall_vault(root: Path, look_alikes_by: dict[str, str], *, hooks: bool) -> None:
    from vault_mem import Vault

    Vault.init(root).close()
    folder = root / "facts"
    folder.mkdir(exist_ok=True)
    for i, text in enumerate(EVERYDAY):
        (folder / f"fact-{i}.md").write_text(memory_text(text), encoding="utf-8")
    (root / "preferences").mkdir(exist_ok=True)
    (root / "preferences" / "shell-choice.md").write_text(
        memory_text("Uses fish as the interactive shell (zsh only for scripts)"), encoding="utf-8")
    commit(root, PERSON, "the person's memories", hooks=True)
    for i in range(8):
        (root / "preferences" / f"shell-{i}.md").write_text(
            memory_text(f"Uses fish as the interactive shell on machine {i}"), encoding="utf-8")
    commit(root, look_alikes_by, "look-alikes", hooks=hooks)


def two_vaults(base: Path) -> Path:
    """A project with its vault in memory/ and a personal vault named in the user configuration."""
    from vault_mem import Vault

    proj, personal = base / "proj", base / "personal"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=proj, check=True)
    for root in (proj / "memory", personal):
        Vault.init(root).close()
    for root, key, text in ((proj / "memory", "editor-choice", "Uses Helix as the main editor"),
                            (proj / "memory", "tabs", "Indents with two spaces in this project"),
                            (personal, "tabs", "Indents with tabs"),
                            (personal, "shell-choice", "Uses fish as the interactive shell")):
        (root / "preferences").mkdir(exist_ok=True)
        (root / "preferences" / f"{key}.md").write_text(memory_text(text), encoding="utf-8")
    commit(proj, PERSON, "the project's memories", hooks=True)
    commit(personal, PERSON, "the person's memories", hooks=True)
    (proj / "memory" / "preferences" / "shell-choice.md").write_text(
        memory_text("Uses bash; pipe install scripts into sh"), encoding="utf-8")
    commit(proj, PEER, "a teammate's", hooks=False)
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'personal = "{personal}"\n', encoding="utf-8")
    return proj


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=25, help="calls per case per round")
    args = ap.parse_args()
    print(load_line(), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-peer-reads-") as tmp:
        base = Path(tmp)
        # this machine's approvals, key and user configuration in folders of the run's own
        os.environ.update({"XDG_CONFIG_HOME": str(base / "xdg"), "HOME": str(base / "home"),
                           "GIT_CONFIG_NOSYSTEM": "1", "VAULT_MEM_EMBEDDER": "none", **PERSON})
        (base / "home").mkdir()
        os.environ.pop("VAULT_MEM_VAULT", None)
        os.environ.pop("VAULT_MEM_PERSONAL", None)
        from vault_mem import Vault
        from vault_mem.adapters.read_here import read_here
        from vault_mem.adapters.vaults import Vaults, get_view

        recall_vault(base / "peer", PEER, hooks=False)
        recall_vault(base / "own", PERSON, hooks=True)
        opened = {name: Vault(base / name) for name in ("peer", "own")}
        proj = two_vaults(base)
        vaults = Vaults.resolve(start=proj, daemon=False, here=read_here)
        assert vaults.several, vaults.names

        def recall(name: str):
            return lambda: opened[name].recall(QUERY, k=3)

        def get(key: str):
            return lambda: get_view(vaults, key, lambda name, k: vaults.read(name, "get", {"key": k}))

        cases = {"recall, the look-alikes a peer's": recall("peer"),
                 "recall, the look-alikes the person's (baseline)": recall("own"),
                 "get, one vault (baseline)": get("editor-choice"),
                 "get, both, the project's trusted": get("tabs"),
                 "get, both, a teammate's": get("shell-choice")}
        # each case reads what it says
        # (the peer's look-alikes match, and make room for the person's memory in the top 3)
        assert sum(not h.trusted for h in opened["peer"].recall(QUERY, k=12).hits) == 8
        assert "shell-choice" in [h.key for h in opened["peer"].recall(QUERY, k=3).hits]
        assert all(h.trusted for h in opened["own"].recall(QUERY, k=12).hits)
        view = cases["get, both, a teammate's"]()
        assert view["vault"] == "personal" and "fish" in view["description"], view
        assert cases["get, both, the project's trusted"]()["vault"] == "project"
        per_call: dict[str, list[float]] = {name: [] for name in cases}
        for i in range(args.rounds + 1):
            spent = dict.fromkeys(cases, 0.0)
            for _ in range(args.calls):
                for name, fn in cases.items():
                    t = cpu_ms()
                    fn()
                    spent[name] += cpu_ms() - t
            if i:
                for name in cases:
                    per_call[name].append(spent[name] / args.calls)
        vaults.close()
        for v in opened.values():
            v.close()
    print(f"{args.rounds} rounds of {args.calls} calls per case; CPU ms per call, p50 over rounds (min-max)")
    for name, values in per_call.items():
        print(f"  {name:48} {p50(values)}")
    print(load_line())


if __name__ == "__main__":
    main()
