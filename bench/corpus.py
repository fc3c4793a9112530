"""Realistic memories for the benches: ordinary personal and project memories of ~20-60 tokens.

The benches used to time pseudo-words ("kalotas ren vo...") or 13-token one-liners. MiniLM's
cost grows with tokens, and pseudo-words split into many word pieces, so neither measured what a
user pays. These texts are of our own making: templates of the kinds of things people ask an
agent to remember (preferences, decisions with reasons, runbooks, facts about people, projects
and machines), filled from word lists with a seeded generator, so ``memories(n)`` is the same
list on every run and every item is unique.

    from corpus import memories, write_vault, load_line
    items = memories(5000)          # [{"key", "type", "description", "body", "tags", "created"}]
    write_vault(Path("/tmp/v"), 5000)   # a vault with those files, one commit, nothing embedded
    print(load_line())

Run it to see samples and the token lengths under the bundled model's tokenizer:
``python bench/corpus.py --n 2000``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: the checkout whose vault_mem the benches run: this one, or the one bench_mcp.py --code names
#: (a before/after run)
CODE = Path(os.environ.get("BENCH_MCP_CODE") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(CODE))

import numpy as np

from vault_mem.embed.base import Embedder

PEOPLE = ["Maya", "Tom", "Priya", "Jonas", "Aiko", "Luis", "Fatima", "Chen", "Olga", "Sam", "Nadia",
          "Ben", "Ines", "Kofi", "Marta", "Raj", "Elena", "Hugo", "Zoe", "Omar", "Lena", "Yuki", "Ivan",
          "Clara", "Diego", "Ana", "Felix", "Grace", "Arjun", "Noor"]
ROLES = ["tech lead", "product manager", "designer", "SRE on call", "data engineer", "security reviewer",
         "backend owner", "mobile lead", "QA lead", "release manager", "finance contact", "team manager"]
PROJECTS = ["billing", "checkout", "search", "onboarding", "mobile app", "data pipeline", "admin portal",
            "notifications", "auth service", "analytics dashboard", "invoice export", "inventory sync",
            "support widget", "recommendations", "payments gateway", "reporting API", "docs site"]
TOOLS = ["Helix", "Neovim", "VS Code", "Emacs", "Zed", "IntelliJ", "tmux", "fish", "zsh", "ripgrep",
         "Docker", "Podman", "Terraform", "Ansible", "Kubernetes", "Nomad", "Grafana", "Sentry", "Postgres",
         "SQLite", "Redis", "Kafka", "RabbitMQ", "DuckDB", "pnpm", "uv", "Poetry", "Bazel", "Gradle", "Vite"]
LANGS = ["Python", "Rust", "Go", "TypeScript", "Kotlin", "Swift", "Elixir", "Java", "C++", "Ruby", "Dart"]
PLACES = ["Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Lyon", "Austin", "Krakow", "Melbourne",
          "Bogota", "Oslo", "Pune", "Seattle", "Tallinn", "Porto"]
MACHINES = ["the build box", "the staging cluster", "my laptop", "the home server", "the CI runners",
            "the GPU workstation", "the prod database host", "the old NAS", "the office printer"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
REASONS = ["it needs row-level locking", "the team already knows it", "the licence allows self-hosting",
           "it halved the cold start", "the old one had no migration story", "support ends next year",
           "it runs offline", "the vendor quote was three times higher", "it keeps the audit trail",
           "latency on the old path was over a second", "it has a stable plugin API",
           "we kept hitting the rate limit", "the benchmark showed fewer allocations",
           "compliance asked for data to stay in the EU"]
ALTERNATIVES = ["MySQL", "MongoDB", "DynamoDB", "Elasticsearch", "Jenkins", "CircleCI", "Heroku", "Nginx",
                "Celery", "Airflow", "Firebase", "GraphQL", "gRPC", "REST", "Webpack", "Make"]
FOODS = ["oat milk", "no cilantro", "spicy ramen", "decaf after noon", "vegetarian lunches",
         "green tea", "sourdough toast", "no peanuts"]
TOPICS = ["code review", "stand-up notes", "release checklist", "incident write-ups", "design docs",
          "commit messages", "test names", "error messages", "API naming", "log levels"]

KEY_WORDS = {"preference": "prefers", "decision": "chose", "procedure": "how-to", "fact": "about", "note": "note"}
TYPE_WEIGHTS = [("fact", 4), ("note", 2), ("preference", 2), ("decision", 1), ("procedure", 1)]


def _preference(r: random.Random) -> tuple[str, str, list[str]]:
    tool, lang, topic = r.choice(TOOLS), r.choice(LANGS), r.choice(TOPICS)
    forms = [
        (f"Uses {tool} as the main tool for {lang} work",
         (f"Switched to {tool} a while ago and keeps its config in the dotfiles repo. "
         f"Mentions it whenever {lang} tooling comes up; do not suggest the old setup.")),
        (f"Wants {topic} kept short and written in plain words",
         (f"Prefers bullet points over paragraphs for {topic}, and no emoji. "
         f"Said so twice during the {r.choice(PROJECTS)} work.")),
        (f"Likes {r.choice(FOODS)} and meetings before {r.choice(['ten', 'eleven', 'noon'])}",
         f"Asked to keep {r.choice(DAYS)} afternoons free for focus time; book calls in the morning."),
        (f"Prefers {lang} type hints everywhere and strict linting",
         f"Runs the linter with warnings as errors in {r.choice(PROJECTS)}; fix lint before asking for review."),
    ]
    d, b = r.choice(forms)
    return d, b, [tool.lower().replace(" ", "-"), lang.lower()]


def _decision(r: random.Random) -> tuple[str, str, list[str]]:
    tool, alt, proj, why = r.choice(TOOLS), r.choice(ALTERNATIVES), r.choice(PROJECTS), r.choice(REASONS)
    d = f"Chose {tool} over {alt} for {proj} because {why}"
    b = (f"Decided in the {r.choice(DAYS)} review with {r.choice(PEOPLE)}. "
         f"Revisit if {alt} adds what was missing or the {proj} load changes a lot.")
    return d, b, [proj.replace(" ", "-"), tool.lower().replace(" ", "-")]


def _procedure(r: random.Random) -> tuple[str, str, list[str]]:
    proj, tool, machine = r.choice(PROJECTS), r.choice(TOOLS), r.choice(MACHINES)
    d = f"How to deploy {proj} to {machine}"
    b = (f"1. Tag the release and push the tag.\n2. Run the {tool} job and wait for the health check.\n"
         f"3. Ask {r.choice(PEOPLE)} to watch the error rate for ten minutes.")
    return d, b, [proj.replace(" ", "-"), "deploy"]


def _fact(r: random.Random) -> tuple[str, str, list[str]]:
    person, role, proj = r.choice(PEOPLE), r.choice(ROLES), r.choice(PROJECTS)
    forms = [
        (f"{person} is the {role} for {proj}",
         (f"Ask {person} before changing anything in {proj}; works from {r.choice(PLACES)} and is "
         f"usually online until {r.choice(['four', 'five', 'six'])} local time.")),
        (f"{_upper_first(r.choice(MACHINES))} runs {r.choice(TOOLS)} for {proj}",
         f"Set up by {person} last year. Disk fills up every few months; the cleanup script is in the ops repo."),
        (f"The {proj} service is written in {r.choice(LANGS)} and owned by {person}",
         f"Its dashboards are in {r.choice(['Grafana', 'Datadog', 'Kibana'])}; the on-call rota changes on {r.choice(DAYS)}."),
        (f"{person} moved to {r.choice(PLACES)} and now leads {proj}",
         f"Previously the {role}. Prefers async updates in the channel over calls."),
    ]
    d, b = r.choice(forms)
    return d, b, [person.lower(), proj.replace(" ", "-")]


def _note(r: random.Random) -> tuple[str, str, list[str]]:
    proj, person, tool = r.choice(PROJECTS), r.choice(PEOPLE), r.choice(TOOLS)
    forms = [
        (f"The {proj} migration is blocked on the {tool} upgrade",
         f"{person} is waiting for the vendor; expected by the end of the month. Check again on {r.choice(DAYS)}."),
        (f"Flaky test in {proj} comes from a timezone assumption",
         f"Fails only between midnight and one UTC; {person} has a fix in review that pins the clock."),
        (f"Idea: cache the {proj} lookups in {tool}",
         f"Would cut the p95 noticeably according to {person}'s rough numbers; not scheduled yet."),
    ]
    d, b = r.choice(forms)
    return d, b, [proj.replace(" ", "-")]


MAKERS = {"preference": _preference, "decision": _decision, "procedure": _procedure, "fact": _fact, "note": _note}


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _slug(text: str) -> str:
    words = ["".join(c for c in w.lower() if c.isalnum()) for w in text.split()]
    return "-".join(w for w in words if w)[:40].strip("-") or "memory"


def memories(n: int, seed: int = 0) -> list[dict]:
    """``n`` unique memories, the same for the same ``seed``."""
    r = random.Random(seed)
    types = [t for t, w in TYPE_WEIGHTS for _ in range(w)]
    seen: set[str] = set()
    out: list[dict] = []
    start = dt.date(2024, 1, 1)
    while len(out) < n:
        type_ = r.choice(types)
        description, body, tags = MAKERS[type_](r)
        if description in seen and r.random() < 0.9:
            # a repeated sentence gets a distinguishing detail, like a person's second note
            description = f"{description} ({r.choice(PLACES)}, {r.choice(DAYS)})"
        if description in seen:
            continue
        seen.add(description)
        key = f"{KEY_WORDS[type_]}-{_slug(description)}-{len(out):06d}"
        out.append({"key": key, "type": type_, "description": description, "body": body, "tags": tags,
                    "created": start + dt.timedelta(days=r.randint(0, 900))})
    return out


def write_vault(root: Path, n: int, seed: int = 0, *, commit: bool = True) -> list[dict]:
    """A vault at ``root`` (created like ``vault-mem init``) holding ``memories(n, seed)`` as files,
    committed in one commit; nothing is indexed or embedded. Returns the memories."""
    from vault_mem.config import TYPE_FOLDERS
    from vault_mem.model.memory import Memory, render_memory
    from vault_mem.vault.create import create_files

    root, _ = create_files(root)
    items = memories(n, seed)
    for item in items:
        meta = {"description": item["description"], "created": item["created"], "updated": item["created"],
                "tags": item["tags"]}
        mem = Memory(key=item["key"], type=item["type"], meta=meta, body=item["body"])
        path = root / TYPE_FOLDERS[item["type"]] / f"{item['key']}.md"
        path.write_text(render_memory(mem), encoding="utf-8")
    if commit:
        env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
               "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
        # gc.auto=0: committing N new objects would start `git gc --auto` in the background, which
        # then competes with whatever the bench times next
        subprocess.run(["git", "-C", str(root), "-c", "gc.auto=0", "commit", "-q", "--no-verify", "-m", f"bench: {n} memories"],
                       check=True, env=env)
    return items


def indexed_vault(root: Path, n: int, seed: int = 0, *, embedder: object = None) -> list[dict]:
    """A vault at ``root`` holding ``memories(n, seed)``, committed, indexed, with the vectors of
    ``embedder`` (None: the vault's own, the real bundled model) made; reused when ``root`` is
    already such a finished vault (``.bench-ready`` names n, seed and the embedder). Returns the
    memories. Building 10k with the real model took 8 minutes on a loaded 2-core box."""
    from vault_mem.vault.core import Vault

    tag = f"{n} {seed} {getattr(embedder, 'model_id', 'vault')}"
    ready = root / ".bench-ready"
    if ready.exists() and ready.read_text() == tag:
        return memories(n, seed)
    if root.exists() and any(root.iterdir()):
        raise SystemExit(f"{root} exists but is not a finished bench vault ({tag}); remove it first")
    items = write_vault(root, n, seed)
    with Vault(root, embedder=embedder) as vault:
        vault.reconcile(force=True)
        vault.sidecar.vectors.embed_pending()
    ready.write_text(tag)
    return items


def git(root: Path, *args: str) -> None:
    """``git ARGS`` in ``root``, output kept quiet. ``gc.auto=0``: a ``git gc --auto`` started by one
    timed command would compete with whatever the bench times next."""
    subprocess.run(["git", "-c", "gc.auto=0", *args], cwd=root, check=True, capture_output=True)


def packed_vault(root: Path, n: int, *, twin: Path | None = None, seed: int = 0) -> list[dict]:
    """A vault at ``root`` holding ``memories(n, seed)``, committed and indexed without vectors
    (``VAULT_MEM_EMBEDDER=none``), and, with ``twin``, its plain-git twin there (a ``git clone``:
    the same files and folders); both packed (``git gc``), as a repository that has lived a while
    is (a freshly filled one holds n loose objects, which slows every git command). Returns the
    memories. The one home of this set-up for the write benches (bench_remember, bench_growth,
    bench_git_options)."""
    from vault_mem.vault.core import Vault

    items = write_vault(root, n, seed)
    before = os.environ.get("VAULT_MEM_EMBEDDER")
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    try:
        with Vault(root) as vault:
            vault.reconcile(force=True)
    finally:
        if before is None:
            os.environ.pop("VAULT_MEM_EMBEDDER", None)
        else:
            os.environ["VAULT_MEM_EMBEDDER"] = before
    repos = [root]
    if twin is not None:
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(twin)], check=True)
        repos.append(twin)
    for repo in repos:
        git(repo, "gc", "-q")
    return items


class PartTimer:
    """Wraps a callable; the milliseconds of each call are appended to ``ms`` (the benches time
    parts of a write by putting one in place of a real function)."""

    def __init__(self, fn) -> None:
        self.fn, self.ms = fn, []

    def __call__(self, *a, **kw):
        t = time.perf_counter()
        try:
            return self.fn(*a, **kw)
        finally:
            self.ms.append((time.perf_counter() - t) * 1000)


class HashEmbedder(Embedder):
    """Bag of hashed words -> 384-d unit vectors: a fast stand-in with the local model's shape,
    for benches whose cost depends on the count and dimension of vectors, not their meaning."""

    model_id = "bench-hash:384"
    dimensions = 384
    batch_size = 256

    def embed_batch(self, texts, *, kind="document"):
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
                out[row, h % self.dimensions] += 1.0 if h & 1 << 20 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def pct(ms: list[float]) -> dict[str, float]:
    """p50, p95 and max of a list of milliseconds, rounded to 0.1 ms."""
    ms = sorted(ms)
    return {"n": len(ms), "p50": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1)}


def start_daemon(root: Path, log: Path) -> subprocess.Popen:
    """``python -m vault_mem daemon ROOT`` (this checkout's code, its defaults), once its socket
    answers a recall (model and vectors warm); stop it with SIGTERM. Its stderr goes to ``log``."""
    from vault_mem.store import daemon_socket as protocol
    from vault_mem.daemon.process import daemon_status

    err = open(log, "wb")  # noqa: SIM115 - kept open for the daemon's life
    proc = subprocess.Popen([sys.executable, "-m", "vault_mem", "daemon", str(root)], stdout=subprocess.DEVNULL,
                            stderr=err, cwd=str(CODE), env={**os.environ, "PYTHONPATH": str(CODE)})
    deadline = time.monotonic() + 900
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the daemon did not start: see {log}")
        # ready, and its socket answers a recall (the model and vectors warm)
        if daemon_status(root).get("ready") and protocol.ask(root, "recall", {"query": "warm up"}) is not None:
            return proc
        time.sleep(0.2)


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average 1/5/15 min: {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=5)
    args = ap.parse_args()
    items = memories(args.n)
    from vault_mem.embed.local import LocalEmbedder
    from vault_mem.model.terms import document_text
    texts = [document_text(m["description"], m["body"], None) for m in items]
    lengths = sorted(LocalEmbedder().token_counts(texts))
    for m in items[: args.samples]:
        print(f"[{m['type']}] {m['key']}\n  {m['description']}\n  {m['body']}")
    q = lambda p: lengths[min(len(lengths) - 1, int(p * len(lengths)))]
    print(f"{len(items)} memories; tokens p10 {q(.1)} p50 {q(.5)} p90 {q(.9)} max {lengths[-1]}")
    print(load_line())


if __name__ == "__main__":
    main()
