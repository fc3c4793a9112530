"""False alarms of the secret gate on real text: how many paragraphs it flags, for this tree or another checkout.

    python bench/secret_real_text.py                       # this tree
    python bench/secret_real_text.py --code /work/main     # another checkout, to compare
    python bench/secret_real_text.py --list                # name each flagged paragraph

Reads every paragraph (split at blank lines) of this venv's site-packages (``.py``, ``.md``,
``.rst``, ``.txt`` and config files), of ``vault_mem/`` and ``docs/``, and the descriptions and
bodies of the LoCoMo recall data in ``/work/shared/bench/`` (read in place, never copied), and
prints how many ``find_secrets`` flags. Real text holds few credentials, so a rule that adds
findings here is a rule that adds false alarms. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCOMO = Path("/work/shared/bench")
_EXTS = {".py", ".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".yaml", ".yml", ".json"}


def _paragraphs(root: Path, exts: set[str]) -> Iterator[tuple[str, str]]:
    for path in sorted(root.rglob("*")):
        if path.suffix in exts and path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for i, para in enumerate(text.split("\n\n")):
                if para.strip():
                    yield f"{path}:{i}", para[:20000]


def _locomo() -> Iterator[tuple[str, str]]:
    for name in ("locomo-dev-turns.json", "locomo-dev-observations.json"):
        path = LOCOMO / name
        if path.exists():
            for i, m in enumerate(json.loads(path.read_text())["memories"]):
                yield f"{name}:{i}:description", m["description"]
                yield f"{name}:{i}:body", m["body"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, help="checkout whose vault_mem to measure (default: this tree)")
    ap.add_argument("--list", action="store_true", help="name each flagged paragraph")
    args = ap.parse_args()
    sys.path.insert(0, str((args.code or ROOT).resolve()))
    from vault_mem.model.secrets import find_secrets

    site = next(Path(sys.prefix, "lib").glob("python*/site-packages"))
    sets = {"site-packages": _paragraphs(site, _EXTS), "vault_mem": _paragraphs(ROOT / "vault_mem", {".py"}),
            "docs": _paragraphs(ROOT / "docs", {".md"}), "locomo": _locomo()}
    for name, texts in sets.items():
        n, flagged = 0, []
        for where, text in texts:
            n += 1
            found = find_secrets(text)
            if found:
                flagged.append(f"{where}: {', '.join(sorted({f.kind for f in found}))}")
        print(f"{name:<14} {len(flagged)}/{n} paragraphs flagged")
        if args.list:
            for line in flagged:
                print(f"  {line}")


if __name__ == "__main__":
    main()
