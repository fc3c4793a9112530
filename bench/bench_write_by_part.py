"""A warm kept write by part: thread CPU (plus the git processes it waited for) and wall of each
step of ``Vault.remember`` in a process kept current by its own watcher (as the MCP server keeps
it: no ``git status``), mean per write, with the write's total p50.

    python bench/bench_write_by_part.py V 10            # V: a vault of corpus.packed_vault
    python bench/bench_write_by_part.py V 10 OLD        # another checkout's vault_mem

Each step is wrapped where it is defined (a step inside another is counted in both); two untimed
writes warm the process first. The texts are ``bench_remember.write_text``'s, which look alike,
so a write's duplicate check often finds an earlier one and asks who wrote it (``duplicate_warnings``).
Keyword-only, no daemon. Asserts nothing.
"""
import os, sys, time, resource, statistics, importlib
for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
                 ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "bench@example.invalid"),
                 ("VAULT_MEM_EMBEDDER", "none"), ("VAULT_MEM_DAEMON", "off")):
    os.environ[env] = val
HERE = os.path.dirname(os.path.abspath(__file__))
code = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(HERE)
os.environ["BENCH_MCP_CODE"] = code  # corpus.py, imported by bench_remember, puts it first
sys.path.insert(0, HERE)
sys.path.insert(0, code)
from bench_remember import write_text
from vault_mem import Vault
from vault_mem.daemon.keeper import Keeper
root, n = sys.argv[1], int(sys.argv[2])
mode = os.environ.get("MODE", "kept")
def cpu():
    k = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.thread_time() + k.ru_utime + k.ru_stime
acc = {}
on = [False]
depth = {}
def wrap(modname, qual):
    mod = importlib.import_module(modname)
    owner = mod
    parts = qual.split(".")
    for p in parts[:-1]:
        owner = getattr(owner, p)
    fn = getattr(owner, parts[-1])
    name = qual
    def w(*a, **kw):
        if not on[0] or depth.get(name):
            return fn(*a, **kw)
        depth[name] = 1
        c, t = cpu(), time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            depth[name] = 0
            acc.setdefault(name, [0.0, 0.0])
            acc[name][0] += (cpu() - c) * 1000; acc[name][1] += (time.perf_counter() - t) * 1000
    setattr(owner, parts[-1], w)
for m, q in [("vault_mem.store.gitindex", "GitIndex._prepare_index"),
             ("vault_mem.store.gitindex", "GitIndex.install_prepared_index"),
             ("vault_mem.store.gitobjects", "GitObjects.edit_tree"),
             ("vault_mem.store.gitobjects", "GitObjects.write_commit"),
             ("vault_mem.store.git", "GitRepo._git_running"),
             ("vault_mem.store.git", "GitRepo._land"),
             ("vault_mem.vault.steps", "commit_index"),
             ("vault_mem.vault.steps", "_index_after_commit"),
             ("vault_mem.vault.steps", "finish_write"),
             ("vault_mem.vault.steps", "_refresh_staging"),
             ("vault_mem.index.sidecar", "Sidecar.refresh_paths"),
             ("vault_mem.index.dupes", "duplicate_warnings"),
             ("vault_mem.daemon.keeper", "Keeper.caught_up_exactly"),
             ("vault_mem.vault.committed", "after_commit"),
             ("vault_mem.vault.transaction", "WriteTransaction.write"),
             ("vault_mem.vault.transaction", "WriteTransaction.__enter__"),
             ("vault_mem.vault.transaction", "recover"),
             ("vault_mem.vault.transaction", "commit_persons_index"),
             ("vault_mem.vault.transaction", "write_journal"),
             ("vault_mem.vault.transaction", "atomic_write"),
             ("vault_mem.store.workspace", "Workspace.own_commit_landed"),
             ]:
    try:
        wrap(m, q)
    except Exception as e:
        print("skip", m, q, e)
tag = f"p{os.getpid()}"
with Vault(root) as kept:
    keeper = None
    if mode == "kept":
        keeper = Keeper(kept); keeper.start_in_background(lambda: Vault(root))
        kept.kept_current, kept.kept_exactly = keeper.catch_up, keeper.caught_up_exactly
    kept.list()
    for w in range(2):
        d, b = write_text(f"{tag}-w{w}"); kept.remember(f"warm{w}-{tag}", d, b)
    tot = []
    for i in range(n):
        d, b = write_text(f"{tag}-{i}")
        on[0] = True
        c, t = cpu(), time.perf_counter()
        kept.remember(f"part-{tag}-{i}", d, b)
        tot.append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
        on[0] = False
    print(f"{mode} N-writes={n}: total CPU p50 {statistics.median(a for a, _ in tot):.1f} min {min(a for a, _ in tot):.1f}, wall p50 {statistics.median(b for _, b in tot):.1f}")
    for k, (c, w) in sorted(acc.items(), key=lambda x: -x[1][0]):
        print(f"  {k:45} CPU {c / n:6.2f} ms  wall {w / n:6.2f} ms (mean per write)")
    if keeper: keeper.close()
print("load", os.getloadavg())
