"""Issue 25's findings tried one by one, as a new user or a checker would, outside the chaos
mix of ``bench/chaos.py`` (which runs gc/repack, stash/pop, autostash pulls, checkouts, random
kill -9s and the disk faults all at once):

- ``locks``: a write killed (-9) at each of its named points (``VAULT_MEM_PAUSE_AT``), among
  them while it holds git's ``index.lock`` and the branch's ``refs/heads/main.lock``; then the
  next ``list`` and ``remember``: how long each took, whether it answered, what was left (locks,
  journal, ``git status``, ``git fsck``), and whether the killed write is all there or not at
  all. Also a write lock held by a live process: ``list`` must not wait for it, and a
  ``remember`` must say what it waits for within 5 s;
- ``disk``: a vault on a 24 MB tmpfs (root only: ``mount``), filled to 0 B / 4 KB / 64 KB / 1 MB free
  while ``remember`` runs with bodies of 1 to 24 KB; ``recall``, ``list`` and ``get`` while full;
  then the disk freed and one ``list``. Every write acknowledged is in HEAD with its body,
  none reported failed is in any commit, on disk or in INDEX.md, and no temp file is left.
  Then the mount remounted read-only: reads answer, a write is refused naming the mount, and
  lands after the remount read-write;
- ``revert``: a hand ``git revert`` of an older agent commit without the daemon; the next agent
  commit's INDEX.md diff holds only its own line, the catching up is in the person's name;
- ``age``: a memory whose ``updated:`` is old, fixed by hand in vim and committed without
  touching ``updated:``: ``get`` and ``recall`` must not call it outdated;
- ``index400``: 400 memories written through the API (100 per type, ~80-character descriptions
  from varied sentences), INDEX.md and the session-start context at the default budget and
  raised ones: every section lists lines, and lines plus "+N more" make 100.

    python bench/fault_items.py                    # every item
    python bench/fault_items.py --only locks disk  # some
    python bench/fault_items.py --trials 3         # kills per point (default 2)

Prints figures per item and each violation; exit 1 on any.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chaos import section_listing, session_context  # bench/ is on sys.path when run as a script

HERE = Path(__file__).resolve().parent
CODE = HERE.parent
PY = sys.executable
POINTS = ("before-write", "after-journal", "after-write", "holding-index-lock", "holding-ref-lock", "after-commit")
ITEMS = ("locks", "disk", "revert", "age", "index400")
SECTIONS = ("Preferences", "Facts", "Decisions", "Procedures")


def env_for(work: Path) -> dict[str, str]:
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Fault Person\n"
                                     "\temail = person@example.com\n[gc]\n\tauto = 0\n")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(work / "xdg"), "GIT_CONFIG_NOSYSTEM": "1",
           "VAULT_MEM_EMBEDDER": "none", "PYTHONPATH": str(CODE), "VAULT_MEM_DAEMON": "off"}
    for name in ("VAULT_MEM_VAULT", "VAULT_MEM_AGENT", "VAULT_MEM_PAUSE_AT", "GIT_DIR", "GIT_WORK_TREE"):
        env.pop(name, None)
    return env


def vm(root: Path, env: dict[str, str], *args: str, input: str | None = None,
       timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    proc = subprocess.run([PY, "-m", "vault_mem", "--vault", str(root), *args], env=env, capture_output=True,
                          text=True, input=input, timeout=timeout, cwd=root)
    return proc, time.monotonic() - start


def git(root: Path, env: dict[str, str], *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def new_vault(root: Path, env: dict[str, str]) -> None:
    proc = subprocess.run([PY, "-m", "vault_mem", "init", str(root)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"vault-mem init failed: {proc.stderr}")


def leftovers(root: Path) -> list[str]:
    """Locks, journals and temp files vault-mem may leave."""
    out = []
    for rel in (".git/index.lock", ".git/refs/heads/main.lock", ".git/HEAD.lock", ".git/packed-refs.lock",
                ".vault-mem/pending.json", ".vault-mem/rollback.json"):
        if (root / rel).exists():
            out.append(rel)
    for folder in ("facts", "preferences", "decisions", "procedures", "notes"):
        for p in (root / folder).glob("*"):
            if not p.name.endswith(".md") and p.name != ".gitkeep":
                out.append(f"{folder}/{p.name}")
    out += [str(p.relative_to(root)) for p in (root / ".git" / "objects").glob("**/tmp_obj_*")]
    return out


def first_stderr_after(cmd: list[str], env: dict[str, str], cwd: Path, limit: float) -> tuple[int, float, float | None, str]:
    """Run ``cmd``; (exit code, wall time, seconds until its first stderr byte or None, stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.set_blocking(proc.stderr.fileno(), False)
    said_at, err = None, b""
    while proc.poll() is None and time.monotonic() - start < limit:
        chunk = proc.stderr.read()
        if chunk:
            err += chunk
            said_at = said_at if said_at is not None else time.monotonic() - start
        time.sleep(0.05)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    rest = proc.stderr.read() or b""
    if rest and said_at is None:
        said_at = time.monotonic() - start
    return proc.returncode, time.monotonic() - start, said_at, (err + rest).decode("utf-8", "replace")


# -- locks ---------------------------------------------------------------------------------------
def item_locks(work: Path, trials: int, bad: list[str]) -> None:
    env = env_for(work)
    root = work / "vault"
    new_vault(root, env)
    slow_list = slow_write = 0.0
    landed = absent = 0
    for point in POINTS:
        for t in range(trials):
            key = f"killed-{point}-{t}"
            penv = {**env, "VAULT_MEM_PAUSE_AT": point}
            proc = subprocess.Popen([PY, "-m", "vault_mem", "--vault", str(root), "remember", key, "-d",
                                     f"Killed at {point} trial {t}", "--body", f"body {key}"],
                                    env=penv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # the lock points pause in the git dir, the others in the state folder
            paused = root / (".git" if point.startswith("holding-") else ".vault-mem") / f"paused-{point}"
            end = time.monotonic() + 60
            while not paused.exists() and proc.poll() is None and time.monotonic() < end:
                time.sleep(0.02)
            if proc.poll() is not None:
                bad.append(f"locks: the write never reached {point} (exit {proc.returncode}: "
                           f"{proc.stderr.read().decode()[-200:]})")
                continue
            time.sleep(random.uniform(0, 0.05))
            proc.kill()
            proc.wait()
            paused.unlink(missing_ok=True)
            held = [p for p in leftovers(root) if p.endswith(".lock")]
            lst, took = vm(root, env, "list", timeout=90)
            slow_list = max(slow_list, took)
            if lst.returncode != 0 or took > 5:
                bad.append(f"locks: list after a kill at {point} (held {held}): exit {lst.returncode} in {took:.1f} s: "
                           f"{lst.stderr.strip()[-300:]}")
            rem, took = vm(root, env, "remember", f"after-{point}-{t}", "-d", f"Written after a kill at {point}",
                           timeout=90)
            slow_write = max(slow_write, took)
            if rem.returncode != 0 or took > 5:
                bad.append(f"locks: remember after a kill at {point} (held {held}): exit {rem.returncode} in "
                           f"{took:.1f} s: {rem.stderr.strip()[-300:]}")
            in_head = key in git(root, env, "ls-tree", "-r", "--name-only", "HEAD")
            on_disk = (root / "facts" / f"{key}.md").exists()
            if in_head != on_disk:
                bad.append(f"locks: the write killed at {point}: in HEAD {in_head}, on disk {on_disk}")
            landed += in_head
            absent += not in_head and not on_disk
            left = leftovers(root)
            status = git(root, env, "status", "--porcelain")
            if left or status:
                bad.append(f"locks: after a kill at {point}: left {left}, git status {status!r}")
    # kill -9 at random moments, of the write's whole process group (its git children too)
    rnd = random.Random(42)
    held_after, random_landed = 0, 0
    for t in range(trials * 10):
        key = f"random-{t}"
        proc = subprocess.Popen([PY, "-m", "vault_mem", "--vault", str(root), "remember", key, "-d",
                                 f"Killed at a random moment, trial {t}", "--body", f"body {key}"],
                                env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(rnd.uniform(0.05, 1.2))
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
        held = [p for p in leftovers(root) if p.endswith(".lock")]
        held_after += bool(held)
        lst, took = vm(root, env, "list", timeout=90)
        slow_list = max(slow_list, took)
        if lst.returncode != 0 or took > 5:
            bad.append(f"locks: list after a random kill (held {held}): exit {lst.returncode} in {took:.1f} s: "
                       f"{lst.stderr.strip()[-300:]}")
        in_head = key in git(root, env, "ls-tree", "-r", "--name-only", "HEAD")
        if in_head != (root / "facts" / f"{key}.md").exists():
            bad.append(f"locks: the write killed at random: in HEAD {in_head}, on disk {not in_head}")
        random_landed += in_head
        left = leftovers(root)
        status = git(root, env, "status", "--porcelain")
        if left or status:
            bad.append(f"locks: after a random kill: left {left}, git status {status!r}")
    rem, took = vm(root, env, "remember", "after-random", "-d", "Written after the random kills", timeout=90)
    if rem.returncode != 0 or took > 5:
        bad.append(f"locks: remember after the random kills: exit {rem.returncode} in {took:.1f} s")
    print(f"locks: {trials * 10} writes' process groups killed at random (0.05-1.2 s): {random_landed} landed "
          f"whole, the rest not at all; {held_after} left a lock the next list dealt with; slowest list {slow_list:.1f} s")
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, env=env, capture_output=True, text=True)
    if fsck.returncode != 0:
        bad.append(f"locks: git fsck: {fsck.stdout[-300:]}{fsck.stderr[-300:]}")
    print(f"locks: {len(POINTS) * trials} writes killed at {', '.join(POINTS)} ({trials} each): "
          f"{landed} landed whole, {absent} not at all; slowest next list {slow_list:.1f} s, next remember "
          f"{slow_write:.1f} s")
    # a live process holding the vault's write lock
    holder = subprocess.Popen([PY, "-c", "import sys, time\nfrom vault_mem import Vault\nv = Vault(sys.argv[1])\n"
                               "v.lock.acquire()\nprint('held', flush=True)\ntime.sleep(float(sys.argv[2]))\n",
                               str(root), "40"], env=env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    holder.stdout.readline()
    lst, took = vm(root, env, "list", timeout=90)
    if lst.returncode != 0 or took > 5:
        bad.append(f"locks: list while a writer holds the lock: exit {lst.returncode} in {took:.1f} s")
    rc, wall, said, err = first_stderr_after([PY, "-m", "vault_mem", "--vault", str(root), "remember", "waiter",
                                              "-d", "Waits for the write lock"], env, root, 90)
    if said is None or said > 5:
        bad.append(f"locks: remember behind a held lock said nothing for {wall if said is None else said:.1f} s")
    print(f"locks: write lock held 40 s by a live process: list {took:.1f} s (exit {lst.returncode}); remember "
          f"said its first word after {said if said is not None else float('nan'):.1f} s, ended after {wall:.1f} s "
          f"(exit {rc}): {err.strip().splitlines()[0][:160] if err.strip() else ''}")
    holder.kill()
    holder.wait()


# -- full and read-only disk --------------------------------------------------------------------
def fill(mnt: Path, leave: int) -> None:
    st = os.statvfs(mnt)
    free = st.f_bavail * st.f_frsize
    with open(mnt / "filler", "ab") as fh:
        try:
            fh.write(b"\0" * max(0, free - leave))
            fh.flush()
            os.fsync(fh.fileno())
        except OSError:
            pass


def item_disk(work: Path, bad: list[str]) -> None:
    env = env_for(work)
    mnt = work / "disk"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mnt)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"disk: skipped: cannot mount a tmpfs ({proc.stderr.strip()}); run as root")
        return
    try:
        root = mnt / "vault"
        new_vault(root, env)
        for i in range(20):
            vm(root, env, "remember", f"base-{i}", "-d", f"A base fact number {i} about the staging server")
        acked, failed, kinds = [], [], {}
        rnd = random.Random(25)
        for leave in (0, 4096, 65536, 1 << 20):
            fill(mnt, leave)
            for i in range(8):
                key = f"full-{leave}-{i}"
                body = f"token {key} " + "x" * rnd.choice((1000, 4000, 12000, 24000))
                r, _ = vm(root, env, "remember", key, "-d", f"Written on a full disk {key}", "--body", body,
                          timeout=90)
                (acked if r.returncode == 0 else failed).append(key)
                if r.returncode != 0:
                    first = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
                    kind = re.sub(r"/\S+", "PATH", first)[:110]
                    kinds[kind] = kinds.get(kind, 0) + 1
                    if "internal error" in r.stderr or "Traceback" in r.stderr:
                        bad.append(f"disk: {key}: {first[:200]}")
            for args in (("recall", "staging server"), ("list",), ("get", "base-3")):
                r, _ = vm(root, env, *args)
                if r.returncode != 0:
                    bad.append(f"disk: {args[0]} with {leave} bytes free failed: {r.stderr.strip()[-200:]}")
            (mnt / "filler").unlink()
        r, _ = vm(root, env, "list")
        if r.returncode != 0:
            bad.append(f"disk: list after the disk was freed: {r.stderr.strip()[-200:]}")
        log = git(root, env, "log", "-p", "--all")
        head = git(root, env, "ls-tree", "-r", "--name-only", "HEAD")
        index = (root / "INDEX.md").read_text()
        for key in acked:
            if f"facts/{key}.md" not in head or f"token {key} " not in git(root, env, "show", f"HEAD:facts/{key}.md"):
                bad.append(f"disk: acknowledged {key} is not in HEAD with its body")
        for key in failed:
            if f"token {key} " in log or f"facts/{key}.md" in head:
                bad.append(f"disk: {key} reported failed is in a commit")
            if (root / "facts" / f"{key}.md").exists() or f"{key}:" in index or f" {key} " in index:
                bad.append(f"disk: {key} reported failed is on disk or in INDEX.md")
        left = leftovers(root)
        if left:
            bad.append(f"disk: left after the full disk: {left}")
        print(f"disk: {len(acked) + len(failed)} writes on a full disk (0 B, 4 KB, 64 KB, 1 MB free): {len(acked)} acknowledged, "
              f"{len(failed)} reported failed; refusals: {json.dumps(kinds, indent=None)}")
        # read-only
        ro = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        if ro.returncode != 0:
            bad.append(f"disk: remount ro refused: {ro.stderr.strip()}")
            return
        try:
            for args in (("recall", "staging server"), ("list",), ("get", "base-3")):
                r, took = vm(root, env, *args)
                if r.returncode != 0:
                    bad.append(f"read-only: {args[0]} failed: {r.stderr.strip()[-200:]}")
            r, took = vm(root, env, "remember", "ro-write", "-d", "Written on a read-only disk")
            said = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            if r.returncode == 0 or "read-only" not in said:
                bad.append(f"read-only: remember gave exit {r.returncode}: {said[:200]}")
            print(f"read-only: recall, list, get answered; remember refused in {took:.1f} s: {said[:160]}")
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(mnt)], capture_output=True)
        r, _ = vm(root, env, "remember", "rw-write", "-d", "Written once the disk is writable again")
        if r.returncode != 0:
            bad.append(f"read-only: a write after the remount rw failed: {r.stderr.strip()[-200:]}")
        if "ro-write" in git(root, env, "log", "--all", "--format=%s"):
            bad.append("read-only: the refused write is in history")
        doc, _ = vm(root, env, "doctor")
        if doc.returncode != 0:
            bad.append(f"disk: doctor after: {doc.stdout.strip()[-300:]} {doc.stderr.strip()[-300:]}")
        fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, env=env, capture_output=True, text=True)
        if fsck.returncode != 0:
            bad.append(f"disk: git fsck: {fsck.stdout[-300:]}{fsck.stderr[-300:]}")
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# -- a hand revert, a hand edit's age ------------------------------------------------------------
def item_revert(work: Path, bad: list[str]) -> None:
    env = env_for(work)
    root = work / "vault"
    new_vault(root, env)
    vm(root, env, "remember", "old-port", "-d", "The proxy listens on port 8080")
    vm(root, env, "remember", "mid-host", "-d", "The build host is ci-3")
    git(root, env, "revert", "--no-edit", "HEAD~1")
    person = git(root, env, "rev-parse", "HEAD").strip()
    r, _ = vm(root, env, "remember", "new-fact", "-d", "The deploy runs on Fridays")
    if r.returncode != 0:
        bad.append(f"revert: the next write failed: {r.stderr.strip()[-200:]}")
        return
    diff = git(root, env, "show", "--format=", "HEAD", "--", "INDEX.md")
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    catch = git(root, env, "log", "--format=%an|%s", f"{person}..HEAD~1")
    if len(changed) != 1 or "old-port" in git(root, env, "show", "HEAD:INDEX.md"):
        bad.append(f"revert: the agent commit's INDEX.md diff: {changed}")
    print(f"revert: agent commit changes INDEX.md by {changed}; between the revert and it: {catch.strip()!r}; "
          f"git status {git(root, env, 'status', '--porcelain')!r}")


def item_age(work: Path, bad: list[str]) -> None:
    env = env_for(work)
    root = work / "vault"
    new_vault(root, env)
    path = root / "facts" / "db-port.md"
    path.write_text("---\ndescription: The database listens on port 5433\ncreated: 2024-01-01\n"
                    "updated: 2024-01-01\n---\n\nThe staging database port.\n")
    git(root, env, "add", "facts/db-port.md")
    git(root, env, "commit", "-qm", "person: db port", "--date=2024-01-01T12:00:00")
    vim = subprocess.run(["vim", "-es", "-u", "NONE", "-i", "NONE", "-c", "%s/5433/5432/", "-c", "wq",
                          str(path)], env=env, capture_output=True, timeout=30)
    if vim.returncode != 0:
        path.write_text(path.read_text().replace("5433", "5432"))
    fixed = {}
    for when in ("on disk", "committed"):
        r, _ = vm(root, env, "get", "db-port", "--json")
        rec, _ = vm(root, env, "recall", "database port", "--json")
        try:
            view = json.loads(r.stdout)
        except ValueError:
            view = {}
        notes = json.dumps(view.get("notes", [])) + rec.stdout
        fixed[when] = (view.get("age_days"), "may be outdated" in notes)
        if view.get("age_days") is None or view["age_days"] > 1 or "may be outdated" in notes:
            bad.append(f"age: a memory fixed by hand today ({when}): age {view.get('age_days')}, "
                       f"outdated note {'may be outdated' in notes}")
        if when == "on disk":
            git(root, env, "commit", "-qam", "person: fix the port")
    print(f"age: a memory with updated: 2024-01-01 fixed in vim: (age days, 'may be outdated') {fixed}")


# -- INDEX.md at 400 memories ---------------------------------------------------------------------
WRITE_400 = r"""
import random, sys
from vault_mem import Vault
subjects = ["The staging deploy", "Our nightly backup job", "The billing service", "Maria's review checklist",
            "The mobile release train", "Postgres on the analytics box", "The onboarding wiki page",
            "The CI runner pool", "Customer support macros", "The search relevance dashboard",
            "Terraform state for eu-west", "The design token pipeline", "Weekly planning notes",
            "The flaky checkout test", "Grafana alert routing", "The legal review queue"]
verbs = ["needs", "uses", "waits for", "depends on", "is owned by", "must never skip", "runs after",
         "is documented in", "breaks without", "should prefer", "was moved to", "reports to"]
objects = ["a manual approval from the on-call lead before noon", "the shared vault in 1Password (not the token)",
           "the read replica instead of the primary database", "two reviewers when it touches payments",
           "the Friday freeze announced in #releases", "a fresh snapshot taken at 02:00 UTC every night",
           "the blue/green switch documented by the platform team", "Python 3.12 and the pinned uv lockfile",
           "the retry budget of three attempts with jitter", "a green canary for at least thirty minutes"]
rnd = random.Random(int(sys.argv[2]))
types = ["preference", "fact", "decision", "procedure"]
with Vault(sys.argv[1]) as v:
    for t in types:
        for i in range(100):
            d = f"{rnd.choice(subjects)} {rnd.choice(verbs)} {rnd.choice(objects)}"
            v.remember(f"{t[:4]}-{i:03d}", d[:100], f"Body of {t} {i}: {d}.", type=t)
"""


def item_index400(work: Path, bad: list[str]) -> None:
    env = env_for(work)
    root = work / "vault"
    new_vault(root, env)
    start = time.monotonic()
    subprocess.run([PY, "-c", WRITE_400, str(root), "25"], env=env, check=True, capture_output=True)
    lens = []
    for p in root.glob("*/*.md"):
        m = re.search(r"^description: (.*)$", p.read_text(), re.MULTILINE)
        if m:
            lens.append(len(m.group(1)))
    print(f"index400: 400 memories through the API in {time.monotonic() - start:.0f} s; descriptions "
          f"{min(lens)}-{max(lens)} characters, mean {sum(lens) / len(lens):.0f}")
    toml = root / "vault.toml"
    for budget in (None, 4000, 8000, 20000, 60000):
        if budget is not None:
            toml.write_text(re.sub(r"budget_tokens = \d+", f"budget_tokens = {budget}", toml.read_text()))
            vm(root, env, "index", "--write")
        context, err = session_context(root, env)
        if context is None:
            context = ""
            bad.append(f"index400: budget {budget}: no session-start context ({err})")
        shown = []
        for name, text in (("INDEX.md", (root / "INDEX.md").read_text()), ("context", context)):
            counts = []
            for title in SECTIONS:
                lines, more = section_listing(text, title)
                counts.append(f"{lines}+{more}")
                if lines == 0 or lines + more != 100:
                    bad.append(f"index400: budget {budget or 'default'}: {name} {title}: {lines} lines, "
                               f"{f'+{more} more' if more else 'no +N more'}")
            shown.append(f"{name} {'/'.join(counts)} ({len(text)} chars)")
        print(f"index400: budget {budget or 'default (2000)'}: " + "; ".join(shown))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=ITEMS, default=list(ITEMS))
    ap.add_argument("--trials", type=int, default=2, help="kills per point in the locks item (default 2)")
    ap.add_argument("--dir", type=Path, help="work folder (default: a new temp folder, removed after)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="vault-mem-faults-", dir=args.dir))
    bad: list[str] = []
    print(f"fault items on {CODE}; load average {os.getloadavg()[0]:.1f}")
    try:
        for item in args.only:
            folder = work / item
            folder.mkdir()
            {"locks": lambda: item_locks(folder, args.trials, bad), "disk": lambda: item_disk(folder, bad),
             "revert": lambda: item_revert(folder, bad), "age": lambda: item_age(folder, bad),
             "index400": lambda: item_index400(folder, bad)}[item]()
    finally:
        subprocess.run(["umount", "-l", str(work / "disk" / "disk")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after {os.getloadavg()[0]:.1f}")
    for line in bad:
        print(f"VIOLATION: {line}")
    print(f"violations: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
