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

Big vaults of peers' memories, two checkouts interleaved (issue 29: who wrote the hits judged
over every memory of the vault)::

    git archive main | tar -x -C /tmp/old
    python bench/bench_peer_reads.py --vault /tmp/v10k=10000 --vault /tmp/v100k=100000 --old /tmp/old --rounds 15

``--vault PATH=N``: the vault at PATH, made first when PATH does not exist by
``bench/corpus.py``'s ``packed_vault`` (N memories committed by plain git, so every one is a
peer's: not made here, an author not approved; indexed keyword-only, packed; 100k took ~25 min
on the loaded 2-core box); remove it after.

With ``--old``, each checkout reads its own copy of the vault (``PATH-old``, a ``cp -a`` made
before either opens it: a sidecar this checkout migrated is refused by an older one), and every
write is made by that checkout's code in a process of its own. Each vault first gets the
person's own memories (three ``Vault.remember`` calls: the agent's commits, made here). Then one
warm process per checkout per vault (a
``Vault`` opened once, as the MCP server and the daemon keep one; no daemon, keyword-only), and
per round, per case, one call in each, the checkouts in turn (which goes first alternates):
``person's``, a recall whose hits are the person's memories; ``peers'``, a recall whose hits
are all peers' (asked again without them: ``Vault._trusted_kept``); ``prompt hook``, the same
query as the prompt hook asks it (``trusted_only``); ``session context``, the session start's
INDEX.md without the peers' (``render_trusted_index``); ``peers' after a write``, the peers'
recall right after an agent's write (made by another process: HEAD and the rows moved, so the
judgement is brought along the change, or made again whole before judge29); ``session context
after a write``, the session context right after another such write. The first call of each case in each
process (the judgement made, nothing kept yet) is printed apart. ``one-shot prompt hook``: a process
of its own per call that opens the vault and asks the prompt hook's recall (``trusted_only``), as
the hook run per prompt without a daemon does (its whole CPU: start-up, imports, the git processes
it waited for); ``one-shot after a write``: the same right after an agent's write made by another
process. ``--cases "one-shot prompt hook,one-shot after a write"`` runs those alone (the warm
processes then read nothing, so the judgement a one-shot finds kept is the last one-shot's).
``--in-turn`` runs those cases on the vault itself, all of ``--old``'s rounds, then this
checkout's (a copy for the old code would be indexed again from its files: ~20 min at 100k)::

    python bench/bench_peer_reads.py --vault /tmp/v100k=100000 --old /tmp/old --in-turn --rounds 5 CPU is the child's own and
its git processes'. Prints p50 (min-max) per (vault, case, checkout) and the load.
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


MINE = [("release-train", "The release train freezes on Thursday at noon", "Freeze at 12:00, ship Friday."),
        ("release-owner", "The release train is driven by the person this quarter", "Rotates each quarter."),
        ("release-notes", "Release notes for the train are written on Wednesday", "In docs/releases.")]
BIG_CASES = {"person's": "when does the release train freeze", "peers'": "Maya moved to Lisbon",
             "prompt hook": "Maya moved to Lisbon", "session context": "",
             "peers' after a write": "Maya moved to Lisbon", "session context after a write": "",
             "one-shot prompt hook": "Maya moved to Lisbon", "one-shot after a write": "Maya moved to Lisbon"}


def child(vault_path: str) -> None:
    """One warm process: reads a case name per line, answers the CPU ms of one call."""
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    while str(HERE.parent) in sys.path:  # the checkout PYTHONPATH names, not this one's
        sys.path.remove(str(HERE.parent))
    import vault_mem
    from vault_mem import Vault

    vault = Vault(vault_path)
    print(f"code {Path(vault_mem.__file__).parent.parent}", flush=True)
    calls = {"person's": lambda: vault.recall(BIG_CASES["person's"]),
             "peers'": lambda: vault.recall(BIG_CASES["peers'"]),
             "prompt hook": lambda: vault.recall(BIG_CASES["prompt hook"], k=3, full=True, trusted_only=True),
             "session context": lambda: vault.render_trusted_index(),
             "peers' after a write": lambda: vault.recall(BIG_CASES["peers'"]),
             "session context after a write": lambda: vault.render_trusted_index()}
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        t = cpu_ms()
        out = calls[name]()
        spent = cpu_ms() - t
        if name.startswith("session context"):
            shape = f"{len(out[2])} peers"
        else:
            shape = ",".join("T" if h.trusted else "p" for h in out.hits)
        print(f"{spent:.3f} {shape}", flush=True)


WRITE = """
import os, sys
os.environ["VAULT_MEM_EMBEDDER"] = "none"
while sys.path and sys.path[0] in ("", os.getcwd()):
    sys.path.pop(0)
sys.path.insert(0, os.environ["BENCH_CODE"])
from vault_mem import Vault
with Vault(sys.argv[1]) as vault:
    for i in range(2, len(sys.argv), 3):
        vault.remember(sys.argv[i], sys.argv[i + 1], sys.argv[i + 2])
"""


ONE_SHOT = """
import os, sys
os.environ["VAULT_MEM_EMBEDDER"] = "none"
while sys.path and sys.path[0] in ("", os.getcwd()):
    sys.path.pop(0)
sys.path.insert(0, os.environ["BENCH_CODE"])
from vault_mem import Vault
with Vault(sys.argv[1]) as vault:
    hits = vault.recall(sys.argv[2], k=3, full=True, trusted_only=True).hits
    print(",".join("T" if h.trusted else "p" for h in hits), getattr(getattr(vault._kept_peers, "last", None), "how", "-"))
"""


def one_shot(code: Path, vault_path: str, query: str) -> tuple[float, str]:
    """The CPU ms of a process of ``code``'s vault-mem that opens the vault and asks the prompt
    hook's recall (``trusted_only``), as a hook run per prompt without a daemon does (its
    start-up and the git processes it waited for included), and the hits' shape."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-c", ONE_SHOT, vault_path, query], check=True, capture_output=True, text=True,
                         env={**os.environ, "BENCH_CODE": str(code), "VAULT_MEM_EMBEDDER": "none", "VAULT_MEM_DAEMON": "off"},
                         cwd="/").stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return spent, out.strip()


def write_with(code: Path, vault_path: str, items: list[tuple[str, str, str]]) -> None:
    """Agent writes to ``vault_path`` made by ``code``'s vault-mem in a process of their own (each
    checkout its own copy of the vault: a sidecar one checkout migrated is refused by an older)."""
    subprocess.run([sys.executable, "-c", WRITE, vault_path, *(x for item in items for x in item)], check=True,
                   env={**os.environ, "BENCH_CODE": str(code), "VAULT_MEM_EMBEDDER": "none", "VAULT_MEM_DAEMON": "off"},
                   cwd="/")


def big(args) -> None:
    """Per-call CPU in warm processes of two checkouts on big vaults (module docstring)."""
    print(load_line(), flush=True)
    codes = ([("old", Path(args.old).resolve())] if args.old else []) + [("new", HERE.parent)]
    results: dict[tuple[str, str, str], list[float]] = {}
    firsts: dict[tuple[str, str, str], float] = {}
    shapes: dict[tuple[str, str, str], str] = {}
    for spec in args.vault:
        vault_path, _, size = spec.partition("=")
        os.environ["VAULT_MEM_EMBEDDER"] = "none"
        if not Path(vault_path).exists():
            from corpus import packed_vault

            packed_vault(Path(vault_path), int(size))
        # one copy of the vault per checkout, made before either opens it (git objects shared)
        paths = {name: vault_path if name == "new" else f"{vault_path}-{name}" for name, _code in codes}
        for name, path in paths.items():
            if path != vault_path and not Path(path).exists():
                subprocess.run(["cp", "-a", vault_path, path], check=True)
        for name, code in codes:
            write_with(code, paths[name], MINE)
        import sqlite3

        with sqlite3.connect(Path(vault_path) / ".vault-mem" / "index.db") as conn:
            n = conn.execute("SELECT count(*) FROM files WHERE usable = 1").fetchone()[0]
        procs = {}
        for name, code in codes:
            env = {**os.environ, "PYTHONPATH": str(code), "BENCH_MCP_CODE": str(code), "VAULT_MEM_EMBEDDER": "none",
                   "VAULT_MEM_DAEMON": "off"}
            procs[name] = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--child", paths[name]],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                           cwd=str(code))
            print(f"{name}: {procs[name].stdout.readline().strip()}", flush=True)
            assert procs[name].stdout.readline().strip() == "ready"
        label = f"{n:,}"
        for r in range(args.rounds + 1):
            for case in args.cases or BIG_CASES:
                if case.endswith("after a write"):  # an agent's write first (another process): HEAD and the rows move
                    for name, code in codes:
                        write_with(code, paths[name], [("release-round", f"The release train round {r} of this bench "
                                                        f"({case})", "A round.")])  # never the same: a no-op
                order = list(procs) if r % 2 == 0 else list(reversed(procs))
                for name in order:
                    if case.startswith("one-shot"):
                        ms, shape = one_shot(dict(codes)[name], paths[name], BIG_CASES[case])
                        key = (label, case, name)
                        shapes[key] = shape
                        (firsts.__setitem__(key, ms) if r == 0 else results.setdefault(key, []).append(ms))
                        continue
                    p = procs[name]
                    p.stdin.write(case + "\n")
                    p.stdin.flush()
                    ms, shape = p.stdout.readline().split(" ", 1)
                    key = (label, case, name)
                    shapes[key] = shape.strip()
                    if r == 0:
                        firsts[key] = float(ms)
                    else:
                        results.setdefault(key, []).append(float(ms))
        for p in procs.values():
            p.stdin.close()
            p.wait()
    print(f"{args.rounds} rounds; CPU ms per call in a warm process, p50 (min-max); first call apart; "
          "hits T = the person's, p = a peer's")
    for (label, case, name), values in results.items():
        print(f"  {label:>8} {case:20} {name:3}  first {firsts[(label, case, name)]:8.1f}   "
              f"then {p50(values):24} {shapes[(label, case, name)]}")
    print(load_line())


def in_turn(args) -> None:
    """The one-shot cases on each vault itself (no copy: a copy's sidecar is not the vault's own,
    and is indexed again from the files, ~20 min at 100k), every round of ``--old``'s code, then
    every round of this checkout's: not interleaved, so the load is printed between them."""
    codes = [("old", Path(args.old).resolve()), ("new", HERE.parent)]
    for spec in args.vault:
        vault_path, _, size = spec.partition("=")
        os.environ["VAULT_MEM_EMBEDDER"] = "none"
        for name, code in codes:
            print(f"{name} ({code}): {load_line()}", flush=True)
            write_with(code, vault_path, MINE)
            for case in args.cases or ("one-shot prompt hook", "one-shot after a write"):
                values, first, shape = [], None, ""
                for r in range(args.rounds + 1):
                    if case.endswith("after a write"):
                        write_with(code, vault_path, [("release-round", f"The release train round {r} ({name})",
                                                       "A round.")])
                    ms, shape = one_shot(code, vault_path, BIG_CASES[case])
                    if r == 0:
                        first = ms
                    else:
                        values.append(ms)
                print(f"  {size:>8} {case:24} {name:3}  first {first:8.1f}   then {p50(values):24} {shape}", flush=True)
        print(load_line())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=25, help="calls per case per round")
    ap.add_argument("--vault", action="append", help="a big vault of peers' memories (module docstring)")
    ap.add_argument("--old", help="another checkout, run alternately with this one (with --vault)")
    ap.add_argument("--cases", type=lambda v: [c.strip() for c in v.split(",")],
                    help="with --vault: these cases alone, comma-separated (default: all)")
    ap.add_argument("--in-turn", action="store_true",
                    help="with --vault and --old: the one-shot cases on the vault itself, every round of --old's "
                         "code first, then this checkout's (which migrates its sidecar: no copy to index again)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    if args.vault and args.in_turn:
        in_turn(args)
        return
    if args.vault:
        big(args)
        return
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
