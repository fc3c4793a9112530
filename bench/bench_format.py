"""What does the file format cost per memory? ``python bench/bench_format.py``.

Options: ``--calls N`` (default 2000) calls per timing, ``--repeat R`` (default 7).

What it prints, in microseconds per call (median of R timings of N calls):
- ``parse``: :func:`parse_memory` of a file as the tool writes it (no comments) and of a
  hand-kept one (comments, a block list, quoting, unknown fields): what every read and the
  sidecar's scan pay per changed file
- ``render``: :func:`render_memory` of the hand-kept memory (a new file, or the fallback)
- ``rewrite``: :func:`rewrite_memory` of the hand-kept file after a description change (the
  update path: parse the old text, edit the changed fields, parse the result back)
- ``writer``: the frontmatter of a memory an agent writes (the tool's fields, its tags) by the
  pure-Python writer and by libyaml's, in the same run; and which one :func:`dump_yaml` takes
  for it (the C writer where it writes the same bytes, tests/test_frontmatter.py). Skipped
  where the checkout has one writer only.

It runs from a checkout of any version: ``rewrite`` is skipped where it does not exist, so
``PYTHONPATH=<other checkout> python bench/bench_format.py`` gives the figures to compare.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import timeit

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.model import memory as M

HAND_KEPT = """---
# Ada keeps this one by hand: please leave the layout alone
source: user            # user | agent | inferred | imported
description: Uses Helix as the main editor
reviewer: "Ada Lovelace"
created: 2026-10-02
updated: 2026-11-29
tags:
  - editor
  - tools

links:
  issue: 'https://example.com/42'   # the original request
  related: [a, b]
zeta_last: true
---

The user moved to Helix for its built-in LSP support.
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()

    def per_call(fn) -> float:
        runs = timeit.repeat(fn, number=args.calls, repeat=args.repeat)
        return statistics.median(runs) / args.calls * 1e6

    meta = {"description": "Uses Helix as the main editor", "created": dt.date(2026, 1, 2),
            "updated": dt.date(2026, 1, 2), "source": "agent", "tags": ["editor", "tools"]}
    plain = M.render_memory(M.Memory("k", "fact", meta, "The user moved to Helix.\n" * 5))
    rel = "preferences/editor.md"
    old = M.parse_memory(HAND_KEPT, rel)
    new = M.Memory(old.key, old.type, {**old.meta, "description": "Uses Helix (since Oct 2026)",
                                       "updated": dt.date(2027, 1, 5)}, old.body)
    print(f"parse, tool-written file   {per_call(lambda: M.parse_memory(plain, 'facts/k.md')):8.1f} us")
    print(f"parse, hand-kept file      {per_call(lambda: M.parse_memory(HAND_KEPT, rel)):8.1f} us")
    print(f"render, hand-kept memory   {per_call(lambda: M.render_memory(new)):8.1f} us")
    if hasattr(M, "rewrite_memory"):
        print(f"rewrite, description edit  {per_call(lambda: M.rewrite_memory(HAND_KEPT, new)):8.1f} us")
    from vault_mem.model import frontmatter_handler as fh

    if getattr(fh, "_CDumper", None) is not None:
        written = {**meta, "scope": "project", "pinned": False, "supersedes": ["facts/old-editor"]}
        pure = per_call(lambda: fh._dump(written, fh._Dumper, 2))
        libyaml = per_call(lambda: fh._dump(written, fh._CDumper, 2))
        taken = "libyaml" if fh._c_dumpable(written) else "pure"
        print(f"writer, pure Python        {pure:8.1f} us")
        print(f"writer, libyaml            {libyaml:8.1f} us   ({pure / libyaml:.1f}x; dump_yaml takes {taken})")


if __name__ == "__main__":
    main()
    print(load_line())
