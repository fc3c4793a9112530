"""Recall and false alarms of the secret gate on a fresh corpus, for this tree or another checkout.

    python bench/bench_secrets.py                          # the fresh (tuning) corpus, this tree
    python bench/bench_secrets.py --set heldout            # the held-out corpus (written after tuning)
    python bench/bench_secrets.py --set heldout2           # the second held-out corpus (after the fixes it led to)
    python bench/bench_secrets.py --set heldout3           # the third (issue 23: written before reading the detector)
    python bench/bench_secrets.py --set heldout4           # the fourth (issue 23 item 5: written before the generic rules)
    python bench/bench_secrets.py --set heldout5           # the fifth (blind: written after the generic rules, untuned)
    python bench/bench_secrets.py --set heldout6           # the sixth (blind: written after heldout5's fixes, untuned)
    python bench/bench_secrets.py --set heldout7           # the seventh (blind: written after heldout6's fixes, untuned)
    python bench/bench_secrets.py --set heldout8           # the eighth (blind: written after heldout7's fixes, untuned)
    python bench/bench_secrets.py --set heldout9           # the ninth (blind: written after heldout8's fixes, untuned)
    python bench/bench_secrets.py --set heldout10          # the tenth (blind: written after heldout9's fixes, untuned)
    python bench/bench_secrets.py --set heldout11          # the eleventh (blind: written before secgen3's rules, untuned)
    python bench/bench_secrets.py --set heldout12          # the twelfth (blind: written at 7defe5a, untuned)
    python bench/bench_secrets.py --set heldout13          # the thirteenth (blind: written at d2a5056, untuned)
    python bench/bench_secrets.py --set heldout14          # the fourteenth (blind: written at d57f557, untuned)
    python bench/bench_secrets.py --set heldout15          # the fifteenth (blind: written at 0b2c2d6, untuned)
    python bench/bench_secrets.py --set heldout16          # the sixteenth (blind: written at 7fa234f, untuned)
    python bench/bench_secrets.py --set heldout17          # the seventeenth (blind: written at 2862a16, untuned)
    python bench/bench_secrets.py --set heldout18          # the eighteenth (blind: written at 8471348, untuned)
    python bench/bench_secrets.py --set heldout19          # the nineteenth (blind: written at 5c91152, untuned)
    python bench/bench_secrets.py --set heldout20          # the twentieth (blind: written at ce189f8, untuned)
    python bench/bench_secrets.py --set heldout21          # the twenty-first (blind: written at 687b03e, untuned)
    python bench/bench_secrets.py --set heldout22          # the twenty-second (blind: written at bf10093, untuned)
    python bench/bench_secrets.py --set heldout24          # blind24's (blind: written at 3f436e7, untuned; 20 classes)
    python bench/bench_secrets.py --set heldout26          # blind26's (blind: written at de19e27, untuned; 14 classes)
    python bench/bench_secrets.py --set heldout27          # blind27's (blind: written at 6da1280, untuned; 19 classes)
    python bench/bench_secrets.py --set heldout28          # blind28's (blind: written at e13b8bc, untuned; 15 classes)
    python bench/bench_secrets.py --set heldout29          # blind29's (blind: written at cb97d7c, untuned; 7 + 10 classes)
    python bench/bench_secrets.py --set heldout30          # blind30's (blind: written at c977825, untuned)
    python bench/bench_secrets.py --set heldout31          # blind31's (blind: written at b32e501, untuned; 17 + 9 classes)
    python bench/bench_secrets.py --set probe              # probes written while fixing heldout4's classes (not held out)
    python bench/bench_secrets.py --set review56           # review56's fresh probes near sec51's rules (not held out)
    python bench/bench_secrets.py --set sec23              # sec23's probes of forms no corpus had (written before its fixes, in-sample)
    python bench/bench_secrets.py --set fresh61a           # fresh61's tuning half (written before its fixes)
    python bench/bench_secrets.py --set fresh61b           # fresh61's held-out half (written after them, measured once)
    python bench/bench_secrets.py --set fresh61            # both halves
    python bench/bench_secrets.py --set generic4           # probes written while fixing heldout10's classes (not held out)
    python bench/bench_secrets.py --set blind32            # blind32's (bench/secrets_corpus_blind32.py; also bench_secrets_blind32.py)
    python bench/bench_secrets.py --set blind32_hard       # blind32's harder half
    python bench/bench_secrets.py --set blind33            # blind33's (blind: written at 725b773, untuned; agents' session notes)
    python bench/bench_secrets.py --set all                # every set above, one line each, then the totals
    python bench/bench_secrets.py --code /work/main        # the same corpus against another checkout
    python bench/bench_secrets.py --misses --timing        # name each miss and false alarm; time the gate

Each corpus item is a memory (key, description, body, frontmatter) put through the write gate,
``vault_mem.model.policy.check_write``, the rule every write path runs: "refused" means it raised
``SecretError``. Prints refused/forms (recall), refused/look-alikes (false-positive rate) and the
precision those give, overall and per class. ``--timing`` also times ``secret_findings`` over the
5,000 memories of the first-index bench (``bench/corpus.py``), the gate's cost at a first index,
next to a reconcile's read of the same memories as files with the gate and without it (the
same-run baseline), and over 64 KB bodies made of what the disguise finders read (each must stay far under a second).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import string
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: sets kept as bench/secrets_corpus_SET.py (the shape bench_secrets_blind32.py reads: no class or meta)
_CORPUS_SETS = ("blind32", "blind32_hard", "blind33")
#: what --set all runs: every set with a FORMS/LOOK_ALIKES module ("fresh61" is fresh61a + fresh61b)
_ALL_SETS = ("fresh", "heldout", *(f"heldout{n}" for n in (*range(2, 23), 24, 26, 27, 28, 29, 30, 31)),
             "review56", "sec23", "fresh61a", "fresh61b", "probe", "generic", "generic2", "generic3", "generic4",
             *_CORPUS_SETS)


def _corpus(name: str):
    """The set's module: bench/data/secrets_NAME.py, or bench/secrets_corpus_NAME.py with each item's
    class (a missing one counts as "-") and frontmatter (none) filled in."""
    if name not in _CORPUS_SETS:
        return __import__(f"secrets_{name}")
    mod = __import__(f"secrets_corpus_{name}")
    for it in mod.FORMS + mod.LOOK_ALIKES:
        it.setdefault("class", "-")
        it.setdefault("meta", {})
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, help="checkout whose vault_mem to measure (default: this tree)")
    ap.add_argument("--set", choices=("fresh", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7",
                                      "heldout8", "heldout9", "heldout10", "heldout11", "heldout12", "heldout13", "heldout14", "heldout15",
                                      "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21", "heldout22",
                                      "heldout24", "heldout26", "heldout27", "heldout28", "heldout29", "heldout30", "heldout31",
                                      "review56", "sec23",
                                      "fresh61a", "fresh61b", "fresh61",
                                      "probe",
                                      "generic", "generic2", "generic3", "generic4", *_CORPUS_SETS, "all"),
                    default="fresh")
    ap.add_argument("--misses", action="store_true", help="list each miss and false alarm by name")
    ap.add_argument("--timing", action="store_true", help="time the gate over the first-index corpus")
    args = ap.parse_args()
    code = (args.code or HERE.parent).resolve()
    sys.path[:0] = [str(code), str(HERE), str(HERE / "data")]
    import vault_mem
    from vault_mem.errors import SecretError
    from vault_mem.model.policy import check_write


    def refused(it: dict) -> bool:
        try:
            check_write(key=it["key"], description=it["description"], body=it["body"], meta=it["meta"])
        except SecretError:
            return True
        return False

    if args.set == "all":
        # one line per set (forms refused, look-alikes refused), misses named with their set, then the
        # totals: what a before/after comparison diffs line by line
        print(f"code: {Path(vault_mem.__file__).parent.parent}   sets: {len(_ALL_SETS)}")
        totals = [0, 0, 0, 0]
        for name in _ALL_SETS:
            corpus = _corpus(name)
            missed = [it["name"] for it in corpus.FORMS if not refused(it)]
            alarms = [it["name"] for it in corpus.LOOK_ALIKES if refused(it)]
            tp, fp = len(corpus.FORMS) - len(missed), len(alarms)
            for i, n in enumerate((tp, len(corpus.FORMS), fp, len(corpus.LOOK_ALIKES))):
                totals[i] += n
            print(f"{name:<13} forms {tp}/{len(corpus.FORMS)}   look-alikes refused {fp}/{len(corpus.LOOK_ALIKES)}")
            if args.misses:
                for m in missed:
                    print(f"  MISSED  {name}:{m}")
                for a in alarms:
                    print(f"  FALSE   {name}:{a}")
        tp, n_forms, fp, n_alike = totals
        print(f"all sets      forms {tp}/{n_forms} ({100 * tp / n_forms:.1f}%)   look-alikes refused {fp}/{n_alike} "
              f"({100 * fp / n_alike:.1f}%)   precision {100 * tp / max(1, tp + fp):.1f}%   load {os.getloadavg()[0]:.1f}")
        return
    corpus = _corpus(args.set)
    print(f"code: {Path(vault_mem.__file__).parent.parent}   corpus: {args.set} "
          f"({len(corpus.FORMS)} forms, {len(corpus.LOOK_ALIKES)} look-alikes)")

    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for it in corpus.FORMS:
        hit = refused(it)
        by_class[it["class"]][0] += hit
        by_class[it["class"]][1] += 1
        if not hit:
            missed.append(it["name"])
    alarms = [it["name"] + ": " + (it["body"][:60].replace("\n", " | ")) for it in corpus.LOOK_ALIKES if refused(it)]
    tp, n_forms, fp, n_alike = len(corpus.FORMS) - len(missed), len(corpus.FORMS), len(alarms), len(corpus.LOOK_ALIKES)
    print(f"recall    {tp}/{n_forms} forms refused ({100 * tp / n_forms:.1f}%)")
    print(f"false pos {fp}/{n_alike} look-alikes refused ({100 * fp / n_alike:.1f}%)")
    print(f"precision {tp}/{tp + fp} refusals were credentials ({100 * tp / max(1, tp + fp):.1f}%)")
    for cls, (hit, n) in sorted(by_class.items()):
        print(f"  {cls:<12} {hit}/{n}")
    if args.misses:
        for name in missed:
            print(f"  MISSED  {name}")
        for name in alarms:
            print(f"  FALSE   {name}")
    if args.timing:
        from corpus import memories

        from vault_mem.model.policy import secret_findings

        mems = memories(5000)
        best = float("inf")
        for _ in range(5):
            t0 = time.process_time()
            for m in mems:
                secret_findings(key=m["key"], description=m["description"], body=m["body"],
                                meta={"tags": m.get("tags", [])})
            best = min(best, time.process_time() - t0)
        print(f"gate over {len(mems)} first-index memories: {best:.2f} s CPU (best of 5), "
              f"{1e6 * best / len(mems):.0f} us each")
        # the same-run baseline: what a reconcile does to each changed file it reads (hash, parse),
        # without the gate and with it (a new policy each round: it keeps what it vetted)
        import datetime as dt

        from vault_mem.config import TYPE_FOLDERS, Config
        from vault_mem.index.scan import state_from_bytes
        from vault_mem.model.memory import Memory, render_memory
        from vault_mem.model.policy import WritePolicy

        cfg = Config()
        files = [(f"{TYPE_FOLDERS[m['type']]}/{m['key']}.md", render_memory(Memory(
            key=m["key"], type=m["type"], body=m["body"],
            meta={"description": m["description"], "created": dt.date(2026, 1, 5), "tags": m.get("tags", [])},
        )).encode()) for m in mems]
        read = {False: float("inf"), True: float("inf")}
        for _ in range(5):
            for gated in (False, True):
                policy = WritePolicy(max_body_bytes=cfg.max_body_bytes, max_file_bytes=cfg.max_file_bytes) \
                    if gated else None
                t0 = time.process_time()
                for rel, data in files:
                    state_from_bytes(rel, data, max_bytes=cfg.max_file_bytes, policy=policy)
                read[gated] = min(read[gated], time.process_time() - t0)
        print(f"a reconcile's read of the same {len(files)} files as files (index.scan.state_from_bytes, best of 5, "
              f"alternating): {1e6 * read[False] / len(files):.0f} us each without the gate, "
              f"{1e6 * read[True] / len(files):.0f} with it")
        # the worst case a peer can push: a body made of credential labels, at the file size limit
        # (model/secret_labels.MAX_LABELS bounds it; RELIABILITY.md "Limits on what a peer can make us do")
        flood = "key=" * 20_000
        t0 = time.process_time()
        secret_findings(key="flood", description="labels", body=flood, meta={})
        print(f"gate over one 80 KB body of `key=`: {time.process_time() - t0:.2f} s CPU, "
              f"load {os.getloadavg()[0]:.1f}")
        # 64 KB bodies made of what each disguise finder reads (model/secret_text: spelled-out
        # characters, character codes, bytes between dots, values built from literals, string lists,
        # rot13 labels) and of random text: each must stay linear, far under a second
        rng = random.Random(64)
        alnum = string.ascii_letters + string.digits
        bodies = {
            "random printable": "".join(rng.choice(string.printable) for _ in range(65536)),
            "spaced characters": " ".join(rng.choice(alnum) for _ in range(32768)),
            "character codes": ",".join(str(rng.randint(33, 126)) for _ in range(20000))[:65536],
            "bytes between dots": "key: " + ".".join(f"{rng.randrange(256):02x}" for _ in range(21000)),
            "shell references": "A=abc\nB=def\nX=" + "$A$B" * 16000,
            "YAML aliases": "a: &p 'x1'\nb: &q 'y2'\n" + "t: [*p, *q]\n" * 5000,
            "string lists": '["ab","cd","ef"],' * 3800,
            "rot13 labels": "cnffjbeq=" * 7000,
            # tests/test_secrets.py's adversarial input RELIABILITY.md names: text base64-encoded twice
            "base64 of text, nested": base64.b64encode(base64.b64encode(b"password=S3cr3t!x " * 4000)).decode(),
        }
        for name, body in bodies.items():
            t0 = time.process_time()
            secret_findings(key="flood", description="disguises", body=body, meta={})
            print(f"gate over one {len(body) // 1024} KB body of {name}: {time.process_time() - t0:.2f} s CPU")
        # one settings-table row 1 MB wide (16x the default body limit, as a raised limit or a
        # peer's file may hold): each credential name's value cell must be found where the
        # splitting put it, not searched for along the row (secret_fields.table_cells)
        row = "| name | value |\n|---|---|\n|" + "".join(f" password | {''.join(rng.choice(alnum) for _ in range(10))} |"
                                                       for _ in range((1 << 20) // 24 + 1))
        t0 = time.process_time()
        secret_findings(key="flood", description="table", body=row[:1 << 20], meta={})
        print(f"gate over one 1024 KB table row of `password | X |`: {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    main()
