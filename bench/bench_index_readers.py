"""Which programs still read a vault's git index when it is kept in the formats git offers big
repositories: the question behind "should vault-mem set ``core.splitIndex`` or ``index.version
4`` on its own vaults above a size" (docs/benchmarks.md, "git's settings").

    python bench/bench_index_readers.py
    python bench/bench_index_readers.py --pygit2 /tmp/pylibs --node-modules /tmp/node/node_modules

A small vault made by ``Vault.init`` and a few ``Vault.remember`` calls (the format does not
depend on the size), copied once per format, each set as a person sets it (``git config``, then the ``git
update-index`` that rewrites the index at once): ``v2`` (what git and vault-mem write by
default), ``v4`` (``index.version 4``: path prefixes compressed), ``split`` (``core.splitIndex``:
a small index with a mandatory ``link`` extension naming a shared index beside it),
``untracked-cache`` (``core.untrackedCache``: an optional ``UNTR`` extension). The vaults live
in a temporary folder with a config folder of their own (``XDG_CONFIG_HOME``), so the
machine's approvals file gains no entries. In each copy a ``Vault.remember`` runs first (vault-mem writes under the
format, and keeps it), then every reader that is present reads the index as it left it:

- ``git status``, ``git diff --cached`` and ``git stash`` (push of a hand edit, then pop) of this
  machine's git;
- GitPython's ``IndexFile`` (``Repo.index.entries``), which scripts around a vault may use;
- pygit2 (libgit2: GUI clients and editors built on it), if ``--pygit2 DIR`` holds it
  (``pip install --target DIR pygit2``);
- isomorphic-git (``listFiles``, ``statusMatrix``: the git of Obsidian's git plugin on mobile
  and of browser editors), if ``--node-modules DIR`` holds it (``npm install isomorphic-git``).

Each reader reads its own copy of the vault as vault-mem's write left it; after each, whether
it rewrote the index file and what ``git status`` then says (clean, or what it now sees changed).
Prints per format and reader "ok" (with the entry count it read, which must equal ``git
ls-files``') or the reader's own error, then git's version and the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

#: per format, the setting a person gives the vault (``git config``) and the command that rewrites
#: the index in it at once
FORMATS = {
    "v2": (None, []),
    "v4": (("index.version", "4"), ["--index-version", "4"]),
    "split": (("core.splitIndex", "true"), ["--split-index"]),
    "untracked-cache": (("core.untrackedCache", "true"), ["--untracked-cache"]),
}

ISO_SCRIPT = r"""
const fs = require('fs'); const git = require('isomorphic-git');
(async () => {
  const dir = process.argv[process.argv.length - 1];
  try {
    const files = await git.listFiles({fs, dir});
    const matrix = await git.statusMatrix({fs, dir});
    const changed = matrix.filter(r => !(r[1] === 1 && r[2] === 1 && r[3] === 1)).length;
    console.log(JSON.stringify({ok: true, entries: files.length, changed}));
  } catch (e) { console.log(JSON.stringify({ok: false, error: String(e.message || e).slice(0, 160)})); }
})();
"""


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-c", "gc.auto=0", *args], cwd=root, capture_output=True, text=True,
                          check=check)


def first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:160]


def index_format(root: Path) -> str:
    """The index's version, and its split and untracked-cache extensions when present."""
    data = (root / ".git" / "index").read_bytes()
    shared = git(root, "rev-parse", "--shared-index-path").stdout.strip()
    return (f"version {int.from_bytes(data[4:8], 'big')}, {len(data)} bytes"
            + (f", split (shared: {Path(shared).name[:20]}...)" if shared else "")
            + (", UNTR" if b"UNTR" in data else ""))


def read_git(root: Path, expected: int) -> dict[str, str]:
    out: dict[str, str] = {}
    st = git(root, "status", "--porcelain", check=False)
    out["git status"] = "ok (clean)" if st.returncode == 0 and not st.stdout else f"rc {st.returncode}: {first_line(st.stderr or st.stdout)}"
    dc = git(root, "diff", "--cached", "--quiet", check=False)
    out["git diff --cached"] = "ok" if dc.returncode == 0 else f"rc {dc.returncode}: {first_line(dc.stderr)}"
    memory = next(p for p in sorted((root / "facts").iterdir()) if p.suffix == ".md")
    before = memory.read_bytes()
    memory.write_bytes(before + b"\nA hand edit.\n")
    push = git(root, "stash", "push", "-q", "--", str(memory.relative_to(root)), check=False)
    restored = memory.read_bytes() == before
    pop = git(root, "stash", "pop", "-q", check=False)
    back = memory.read_bytes() == before + b"\nA hand edit.\n"
    if push.returncode == 0 and pop.returncode == 0 and restored and back:
        out["git stash push/pop"] = "ok"
    else:
        out["git stash push/pop"] = (f"push rc {push.returncode}, pop rc {pop.returncode}, restored {restored}, "
                                     f"back {back}: {first_line(push.stderr + pop.stderr)}")
    memory.write_bytes(before)
    return out


def read_gitpython(root: Path, expected: int) -> str:
    import git as gitpython

    try:
        n = len(gitpython.Repo(root).index.entries)
    except Exception as exc:  # the reader's own error is the finding
        return f"{type(exc).__name__}: {first_line(str(exc))}"
    return f"ok ({n} entries)" if n == expected else f"read {n} entries, git lists {expected}"


def read_pygit2(root: Path, expected: int, where: Path) -> str:
    code = ("import sys, pygit2; r = pygit2.Repository(sys.argv[1]); i = r.index; "
            "s = {p: f for p, f in r.status().items() if f != pygit2.GIT_STATUS_CURRENT}; "
            "print(len(i), len(s), pygit2.LIBGIT2_VERSION)")
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(where)}, check=False)
    if done.returncode != 0:
        return first_line(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    n, changed, version = done.stdout.split()
    ok = int(n) == expected and changed == "0"
    return f"{'ok' if ok else 'WRONG'} ({n} entries, {changed} changed; libgit2 {version})"


def read_isomorphic(root: Path, expected: int, modules: Path) -> str:
    done = subprocess.run(["node", "-e", ISO_SCRIPT, str(root)], capture_output=True, text=True,
                          env={**os.environ, "NODE_PATH": str(modules)}, check=False)
    try:
        got = json.loads(done.stdout)
    except ValueError:
        return first_line(done.stderr or done.stdout or "no output")
    if not got["ok"]:
        return f"error: {got['error']}"
    ok = got["entries"] == expected and got["changed"] == 0
    return f"{'ok' if ok else 'WRONG'} ({got['entries']} entries, {got['changed']} changed)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pygit2", type=Path, help="a folder holding pygit2 (pip install --target)")
    ap.add_argument("--node-modules", type=Path, help="a node_modules folder holding isomorphic-git")
    ap.add_argument("--memories", type=int, default=20)
    args = ap.parse_args()
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    os.environ["VAULT_MEM_DAEMON"] = "off"
    from vault_mem import Vault

    with tempfile.TemporaryDirectory(prefix="bench-index-readers-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        base = Path(tmp) / "base"
        v = Vault.init(base)
        try:
            for i in range(args.memories):
                v.remember(f"reader-{i}", f"Memory {i} read by other programs", f"Body {i}.")
        finally:
            v.close()
        rows: list[tuple[str, dict[str, str]]] = []
        for name, (setting, made_by) in FORMATS.items():
            root = Path(tmp) / name
            shutil.copytree(base, root, symlinks=True)
            if setting:
                git(root, "config", *setting)
                git(root, "update-index", *made_by)
            v = Vault(root)
            try:
                v.remember("reader-written", f"Written under the {name} index", "Body.")
            finally:
                v.close()
            expected = len(git(root, "ls-files", "-z").stdout.split("\0")) - 1
            got = {"index after vault-mem's write": index_format(root)}
            readers = {"GitPython IndexFile": read_gitpython}
            if args.pygit2:
                readers["pygit2 (libgit2)"] = lambda r, n: read_pygit2(r, n, args.pygit2)
            if args.node_modules:
                readers["isomorphic-git"] = lambda r, n: read_isomorphic(r, n, args.node_modules)
            readers["git"] = read_git
            for reader, read in readers.items():
                here = Path(tmp) / f"{name}-{reader.split()[0]}"  # each reader on its own copy
                shutil.copytree(root, here, symlinks=True)
                index = (here / ".git" / "index").read_bytes()
                said = read(here, expected)
                for what, result in (said.items() if isinstance(said, dict) else [(reader, said)]):
                    got[what] = result
                if reader != "git":  # did the reader leave the index as git reads it?
                    wrote = (here / ".git" / "index").read_bytes() != index
                    after = git(here, "status", "--porcelain", check=False)
                    got[f"  then git status ({'index rewritten' if wrote else 'index untouched'} by {reader.split()[0]})"] = (
                        "clean" if after.returncode == 0 and not after.stdout
                        else f"{len(after.stdout.splitlines())} paths changed: {first_line(after.stdout)}")
            rows.append((name, got))
        for name, got in rows:
            print(f"{name}:")
            for reader, result in got.items():
                print(f"  {reader:>30}: {result}")
    print(subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip())
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
