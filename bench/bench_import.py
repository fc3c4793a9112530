"""How long `vault-mem import` and `vault-mem export` take for a folder of N Markdown notes.

    python bench/bench_import.py                 # N = 1000
    python bench/bench_import.py --sizes 500,2000

Per size: a plain Markdown folder of N notes is built (one in 50 holds a credential, so the
refusal path is paid too), then timed: the dry run, the real import into a fresh vault (one
commit; keyword-only embedder, as the write path does not embed), the same import again (all
skipped), and an export to JSONL. Prints the seconds and the per-note cost; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from corpus import load_line  # bench/ is on sys.path when run as a script

AWS_KEY = "AK" + "IA" + "QWERTYUIOPASDFGH"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000")
    args = ap.parse_args()
    os.environ.setdefault("VAULT_MEM_EMBEDDER", "none")
    from vault_mem import Vault
    from vault_mem.ops.export import export_memories, render
    from vault_mem.ops.importers import import_source

    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "notes"
            for i in range(n):
                folder = src / f"topic-{i % 20}"
                folder.mkdir(parents=True, exist_ok=True)
                secret = f"\nkey = {AWS_KEY}\n" if i % 50 == 7 else ""
                (folder / f"note-{i}.md").write_text(
                    f"# Note {i} about the billing service\n\nIt handles invoices of kind {i}.{secret}\n")
            vault = Vault.init(Path(tmp) / "v", agent="bench")
            figures = {}
            for label, dry in (("dry run", True), ("import", False), ("again", False)):
                t0 = time.perf_counter()
                report = import_source(vault, src, dry_run=dry)
                figures[label] = (time.perf_counter() - t0, len(report.of("import")), len(report.of("refuse")))
            t0 = time.perf_counter()
            records, _ = export_memories(vault)
            render(records, "jsonl")
            figures["export"] = (time.perf_counter() - t0, len(records), 0)
            vault.close()
            for label, (secs, done, refused) in figures.items():
                print(f"N={n:>6} {label:<8} {secs:7.2f} s  ({secs / n * 1000:.2f} ms/note; "
                      f"{done} imported/exported, {refused} refused)")


if __name__ == "__main__":
    main()
    print(load_line())
