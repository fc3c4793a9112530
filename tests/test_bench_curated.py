"""bench/data/make_curated.py: the hand-written held-out sets (curated16, curated18) are measured
through files derived from their .jsonl; those files must be what the script writes from them, or
a figure stands for questions nobody wrote."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "bench" / "data"


def make_curated():
    spec = importlib.util.spec_from_file_location("make_curated_under_test", DATA / "make_curated.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("script", [["make_curated.py"], ["make_curated.py", "--set", "curated18"],
                                    ["make_curated16.py"]])
def test_every_sets_derived_files_are_up_to_date(script) -> None:
    """`--check` as the READMEs run it (every set, one set, and curated16's own command)."""
    out = subprocess.run([sys.executable, str(DATA / script[0]), *script[1:], "--check"],
                         capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stdout + out.stderr


def test_check_names_the_files_a_changed_question_leaves_stale(tmp_path, monkeypatch) -> None:
    mod = make_curated()
    shutil.copytree(DATA / "curated18", tmp_path / "curated18")
    monkeypatch.setattr(mod, "DATA", tmp_path)
    assert mod.stale("curated18") == []
    path = tmp_path / "curated18" / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    first = rows[0]
    rows[0] = {**first, "q": first["q"] + " (reworded)"}
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert set(mod.stale("curated18")) == {"curated18.json", "questions.txt", f"questions-{first['category']}.txt"}
    assert mod.main(["--set", "curated18", "--check"]) == 1
    assert mod.main(["--set", "curated18", "--write"]) == 0
    assert mod.stale("curated18") == []


def test_a_question_whose_key_is_not_stored_is_refused(tmp_path, monkeypatch) -> None:
    mod = make_curated()
    shutil.copytree(DATA / "curated18", tmp_path / "curated18")
    monkeypatch.setattr(mod, "DATA", tmp_path)
    with (tmp_path / "curated18" / "questions.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"category": "people", "key": "no-such-memory", "q": "who?"}) + "\n")
    with pytest.raises(SystemExit, match="no-such-memory"):
        mod.load("curated18")


def test_curated16_keeps_its_query_ids() -> None:
    """The generalised script writes curated16.json as make_curated16.py always did (ids c16-NNN)."""
    bench = json.loads((DATA / "curated16" / "curated16.json").read_text(encoding="utf-8"))
    assert bench["queries"][0]["id"] == "c16-001"
    assert make_curated().query_prefix("curated18") == "c18"
