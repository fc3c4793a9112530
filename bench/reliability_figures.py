"""Run the reliability suite and print its figures (the numbers quoted in RELIABILITY.md).

    python bench/reliability_figures.py            # all five files, then the table
    python bench/reliability_figures.py --json out.json

Each test records its own counts with pytest's ``record_property`` (writes attempted and landed,
faults injected, inputs tried, peak memory of the 50 MB refusal) next to what it asserts; this
script runs them with ``--junitxml`` and sums those properties per file. The figures live here,
not in the suite: no test exists only to print them. It asserts nothing beyond pytest's own exit
code (a failing test still gives its figures, and the script exits non-zero).

The stress tests run at their full sizes here (``VAULT_MEM_STRESS=full`` unless the environment
names another scale), the sizes RELIABILITY.md's figures are for; ``python -m pytest`` runs their
everyday sizes (``tests/stress.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from corpus import load_line  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
FILES = ["load", "crash", "corrupt", "property", "fuzz"]


def run(files: list[str]) -> tuple[int, dict, float]:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        paths = [f"tests/test_reliability_{name}.py" for name in files]
        t0 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-o",
                "junit_family=legacy",
                f"--junitxml={xml}",
                *paths,
            ],
            cwd=ROOT,
            # the full sizes of the stress tests, which RELIABILITY.md's figures are for (the
            # everyday suite runs smaller ones: tests/stress.py); VAULT_MEM_STRESS=4 runs 4x them
            env={**os.environ, "VAULT_MEM_STRESS": os.environ.get("VAULT_MEM_STRESS") or "full"},
            check=False,
        )
        elapsed = time.perf_counter() - t0
        props: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        durations: dict[str, float] = defaultdict(float)
        outcomes: dict[str, int] = defaultdict(int)
        for case in ET.parse(xml).iter("testcase"):
            parts = case.get("classname", "").split(".")
            module = next((x for x in parts if x.startswith("test_reliability_")), parts[-1])
            module = module.removeprefix("test_reliability_")
            durations[module] += float(case.get("time", 0))
            failed = case.find("failure") is not None or case.find("error") is not None
            skipped = case.find("skipped")
            outcome = (
                "failed"
                if failed
                else "passed"
                if skipped is None
                else "xfailed (known bugs)"
                if skipped.get("type") == "pytest.xfail"
                else "skipped"
            )
            outcomes[outcome] += 1
            values: dict[str, list] = defaultdict(list)
            for p in case.iter("property"):
                values[p.get("name")].append(_value(p.get("value")))
            props[module][case.get("name")] = {
                k: (sum(v) if all(isinstance(x, float) for x in v) else v) for k, v in values.items()
            }
    return proc.returncode, {"props": props, "durations": durations, "outcomes": outcomes}, elapsed


def _value(text: str | None) -> float | str:
    try:
        return float(text or "")
    except ValueError:
        return text or ""


def total(props: dict, module: str, name: str) -> int:
    return int(sum(v.get(name, 0) for v in props.get(module, {}).values()))


def per_file(cases: dict[str, dict]) -> dict:
    """A file's counts summed over its tests; text properties (a fault's name) listed."""
    out: dict = {}
    for values in cases.values():
        for name, value in values.items():
            if isinstance(value, list):
                out.setdefault(name, []).extend(value)
            else:
                out[name] = out.get(name, 0) + value
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in sorted(out.items())}


def figures(data: dict) -> dict:
    p = data["props"]
    load = next(iter(p.get("load", {}).values()), {})
    fuzz_big = next((v for k, v in p.get("fuzz", {}).items() if k.startswith("test_50mb")), {})
    prop = next((v for k, v in p.get("property", {}).items() if k.startswith("test_vault_invariants")), {})
    return {
        "load": {k: int(v) if float(v).is_integer() else v for k, v in load.items()},
        "faults_injected": {
            "kill -9 of a writer or the daemon": total(p, "crash", "faults_injected"),
            "damaged state (db, state folder, locks, journal, merge)": total(p, "corrupt", "faults_injected"),
        },
        "inputs_tried": {
            "hypothesis state machine steps": int(prop.get("steps", 0)),
            "hypothesis state machine runs": int(prop.get("runs", 0)),
            "hostile inputs (API, tools, CLI, files)": total(p, "fuzz", "inputs_tried"),
        },
        "50mb_body": {k: int(v) for k, v in fuzz_big.items()},
        "details": {
            module: per_file({k: v for k, v in cases.items() if not k.startswith("test_50mb")})
            for module, cases in p.items()
            if module != "load"
        },
        "seconds_per_file": {k: round(v, 1) for k, v in data["durations"].items()},
        "outcomes": dict(data["outcomes"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--files", default=",".join(FILES), help="which test files (default: all five)")
    args = ap.parse_args()
    code, data, elapsed = run(args.files.split(","))
    out = figures(data)
    out["seconds_total"] = round(elapsed, 1)
    out["load"] = load_line()
    print()
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
