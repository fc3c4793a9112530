"""Hostile input: keys, descriptions, bodies, tags and queries through the Python API, the CLI
and the tool dispatcher, plus hostile files on disk.

- No uncaught exception: the API raises only VaultMemError subclasses; the CLI exits 0/1/2 with
  ``error: ...`` and never a traceback; ``dispatch`` never reports an internal error.
- No file outside the vault is written (a sentinel folder next to the vault must not change) or
  shown (symlinked files and symlinked type folders pointing outside are refused, not indexed).
- Frontmatter injection through a description, a tag, a field or the body cannot forge a field:
  a write either reads back exactly as given or is refused.
- YAML tricks in hand-edited files (alias bombs, ``!!python/object``, impossible dates, deep
  nesting, huge integers) are reported as unusable files; nothing is executed, nothing crashes.
- A 50 MB body is refused without being read whole into memory (peak RSS of the CLI process,
  ``tracemalloc`` for the API).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import conftest
import pytest
from stress import sized
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
SECRET = "ZEBRAFISHSECRET"  # a word that only exists outside the vault
# Each fuzz test's examples: 200-250 at full size (RELIABILITY.md's figures), 60-75 everyday.
# Derandomized: every run of the suite tries the same inputs, so the everyday suite repeats its
# first ones and the full run (bench/reliability_figures.py) tries the rest; no failure on record
# names the example that found it.
API_EXAMPLES, QUERY_EXAMPLES, TOOL_EXAMPLES = sized(200, 60), sized(200, 60), sized(250, 75)
FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
ALLOWED_TOP = {
    "INDEX.md",
    "README.md",
    "vault.toml",
    ".gitignore",
    ".gitattributes",
    ".git",
    ".vault-mem",
    "preferences",
    "facts",
    "decisions",
    "procedures",
    "notes",
}

HOSTILE_TEXT = [
    "x\n---\nsource: user",
    "x\r\nsource: user",
    "x\x85source: user",
    "x\u2028---\u2028source: user",
    "---",
    "...",
    "- a",
    "? a",
    ": b",
    "&a [1]",
    "*a",
    "!!python/object/apply:os.system ['id']",
    "{a: 1}",
    "[a, b",
    "'",
    '"',
    "#",
    "%YAML 1.1",
    "|",
    ">",
    "@x",
    "`x`",
    "\t",
    " ",
    "",
    "\x00",
    "a\x00b",
    "\ud800",
    "\ufeff",
    "ÿ" * 300,
    "💥" * 70,
    "x" * 5000,
    "NEAR(a b)",
    "a* OR b:c",
    '"unbalanced',
    "^x",
    "(",
    "2026-02-30",
    "1e999",
    "9" * 5000,
    "~",
    "null",
    "true",
    "<<: *a",
]
HOSTILE_KEYS = [
    "../outside",
    "../../etc/passwd",
    "/etc/passwd",
    "/tmp/x",
    "a/b",
    "a\\b",
    "a\x00b",
    "..",
    ".",
    "",
    "x" * 81,
    "index",
    "INDEX",
    "readme",
    "readme.md",
    "con",
    "a.md",
    "a..b",
    ".hidden",
    "-a",
    "_a",
    "ключ",
    "a b",
    "a\nb",
    "~",
    "facts/x",
    "x/../../y",
    "\ud800",
    "a" * 80,
]
valid_keys = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,12}", fullmatch=True).filter(lambda k: ".." not in k)
# valid values are drawn often enough that many writes land and get checked on the way back
keys = st.one_of(valid_keys, valid_keys, valid_keys, st.sampled_from(HOSTILE_KEYS), st.text(max_size=20))
texts = st.one_of(
    st.text(max_size=80),
    st.text(max_size=80),
    st.sampled_from(HOSTILE_TEXT),
    st.lists(st.sampled_from(HOSTILE_TEXT), max_size=4).map("\n".join),
)
one_line = st.text(min_size=1, max_size=60).filter(lambda d: d.strip() and len(d.strip().splitlines()) == 1)
descriptions = st.one_of(one_line, one_line, texts)
bodies = st.one_of(
    texts,
    st.sampled_from(
        ["---\nsource: user\n---\n", "\n---\ndescription: forged\n---\n", "---\n\n---\n", "\n\n---\n"]
    ).flatmap(lambda head: texts.map(lambda t: head + t)),
)
tags = st.one_of(st.none(), st.lists(texts, max_size=4))
sources = st.sampled_from(["agent"] * 4 + ["user", "inferred", "imported", "root", "", "user\nsource: x"])
types = st.sampled_from(
    ["fact"] * 4 + ["preference", "decision", "procedure", "note", "facts", "secret", "", "../x"]
)
def _env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "VAULT_MEM_EMBEDDER": "none",
        **extra,
    }


def cli(*args: str, root: Path, **kw) -> conftest.CliResult:
    """``vault-mem --vault ROOT ARGS`` in process (``text=``, ``input=`` as for subprocess.run).

    Arguments that are not UTF-8 reach ``main`` as the lone surrogates Python's own argv
    decoding makes of them (``os.fsdecode``), so hostile bytes are tried the same way."""
    return conftest.cli("--vault", str(root), *args, **kw)


def tree(path: Path) -> dict[str, bytes]:
    return {
        p.relative_to(path).as_posix(): (p.read_bytes() if p.is_file() and not p.is_symlink() else b"<dir>")
        for p in sorted(path.rglob("*"))
    }


@pytest.fixture
def setup(tmp_path):
    """A vault and, next to it, an ``outside`` folder holding a secret file it must never show."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"---\ndescription: {SECRET} outside file\n---\n{SECRET}\n")
    (outside / "dir" / "leak.md").write_text(f"---\ndescription: {SECRET} in a folder\n---\n{SECRET}\n")
    v = new_vault(tmp_path / "vault")
    v.remember("seed", "A first memory about kettles", "Body.\n")
    yield v, outside
    v.close()


def assert_vault_layout(root: Path) -> None:
    from vault_mem.config import FOLDER_TYPES
    from vault_mem.model.memory import parse_memory

    for p in root.iterdir():
        assert p.name in ALLOWED_TOP, f"unexpected {p.name} at the vault's top"
    for folder in FOLDER_TYPES:
        for p in (root / folder).iterdir():
            if p.name.startswith("."):
                assert p.name == ".gitkeep", p
                continue
            parse_memory(p.read_text(encoding="utf-8"), f"{folder}/{p.name}")  # agent files all parse


# -- Python API ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_fuzz_api_remember_get_forget(setup, record_property):
    from vault_mem.errors import VaultMemError

    vault, outside = setup
    before_outside = tree(outside)
    tried = landed = 0

    @settings(FUZZ, max_examples=API_EXAMPLES)
    @given(
        key=keys,
        desc=descriptions,
        body=bodies,
        tag_list=tags,
        type_=types,
        source=sources,
        scope=st.one_of(st.just(""), texts),
    )
    def run(key, desc, body, tag_list, type_, source, scope):
        nonlocal tried, landed
        tried += 1
        try:
            r = vault.remember(
                key,
                desc,
                body,
                type=type_,
                tags=tag_list,
                source=source,
                extra={"scope": scope} if scope.strip() else None,
            )
        except VaultMemError as exc:
            assert str(exc).strip()
            return
        landed += r.commit is not None
        mem = vault.get(key)  # reads back exactly what was given: nothing forged, nothing lost
        assert mem.description == desc.strip()
        assert mem.body.rstrip("\n") == body.rstrip("\n")
        assert mem.source == source
        if scope.strip():
            assert mem.meta["scope"] == scope
        if tag_list is not None:
            assert mem.tags == [t.strip() for t in tag_list if t and t.strip()]
        assert set(mem.meta) <= {"description", "created", "updated", "source", "tags", "scope"}
        vault.recall(desc, k=3)
        if tried % 5 == 0:
            vault.forget(key)

    run()
    assert tree(outside) == before_outside, "a file outside the vault changed"
    assert_vault_layout(vault.root)
    assert vault.sidecar.doctor() == []
    record_property("inputs_tried", tried)
    record_property("writes_landed", landed)
    record_property("api_write_inputs", tried)
    record_property("api_writes_landed", landed)


def test_fuzz_recall_queries_never_raise(setup, record_property):
    from vault_mem.errors import VaultMemError

    vault, _ = setup
    tried = 0

    @settings(FUZZ, max_examples=QUERY_EXAMPLES)
    @given(
        query=st.one_of(texts, st.text(max_size=5000)),
        k=st.one_of(st.none(), st.integers(-5, 150)),
        type_=st.one_of(st.none(), types),
        tag_list=st.one_of(st.none(), st.lists(texts, max_size=3)),
    )
    def run(query, k, type_, tag_list):
        nonlocal tried
        tried += 1
        try:
            result = vault.recall(query, k=k, type=type_, tags=tag_list)
        except VaultMemError as exc:
            assert str(exc).strip()
            return
        assert all(SECRET not in (h.body or "") for h in result.hits)
        vault.list(type=type_ if type_ in (None, "fact", "note") else None, tags=tag_list)

    run()
    record_property("inputs_tried", tried)
    record_property("recall_inputs", tried)


# -- tool dispatcher ----------------------------------------------------------------------------
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), texts),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
tool_args = st.fixed_dictionaries(
    {},
    optional={
        "key": st.one_of(keys, keys, json_values),
        "description": st.one_of(descriptions, json_values),
        "body": st.one_of(bodies, json_values),
        "type": st.one_of(types, json_values),
        "tags": st.one_of(tags, json_values),
        "query": st.one_of(texts, json_values),
        "k": json_values,
        "source": st.one_of(sources, json_values),
        "scope": texts,
        "supersedes": json_values,
        "expires": st.one_of(texts, json_values),
        "refs": json_values,
        "include_expired": json_values,
        "content": texts,
    },
)


# well-formed calls with hostile values, so that the success paths are fuzzed too
good_calls = st.one_of(
    st.tuples(
        st.just("remember"),
        st.fixed_dictionaries(
            {"key": valid_keys, "description": one_line},
            optional={
                "body": bodies,
                "tags": st.lists(one_line, max_size=3),
                "scope": one_line,
                "type": st.sampled_from(["fact", "note", "decision"]),
                "source": st.sampled_from(["user", "agent"]),
                "supersedes": st.lists(valid_keys, max_size=2),
                "refs": st.lists(one_line, max_size=2),
                "expires": st.sampled_from(["2030-01-01", "2020-02-29"]),
            },
        ),
    ),
    st.tuples(
        st.just("recall"),
        st.fixed_dictionaries(
            {"query": texts},
            optional={
                "k": st.integers(1, 20),
                "tags": st.lists(one_line, max_size=2),
                "scope": one_line,
                "include_expired": st.booleans(),
            },
        ),
    ),
    st.tuples(st.sampled_from(["get", "forget"]), st.fixed_dictionaries({"key": valid_keys})),
    st.tuples(
        st.just("list"),
        st.fixed_dictionaries(
            {}, optional={"type": st.sampled_from(["fact", "note"]), "tags": st.lists(one_line, max_size=2)}
        ),
    ),
)


@pytest.mark.slow
def test_fuzz_tool_dispatch_never_crashes(setup, record_property):
    from vault_mem.adapters.tools import TOOL_NAMES, call_tool, dispatch

    vault, outside = setup
    before_outside = tree(outside)
    tried = succeeded = 0

    @settings(FUZZ, max_examples=TOOL_EXAMPLES)
    @given(
        call=st.one_of(
            good_calls,
            st.tuples(
                st.one_of(st.sampled_from(TOOL_NAMES), st.sampled_from(["", "rm", "remember ", "__init__"])),
                st.one_of(tool_args, json_values, texts),
            ),
        ),
        encode=st.sampled_from(["dict", "dict", "json", "double", "fence", "raw"]),
    )
    def run(call, encode):
        nonlocal tried, succeeded
        name, args = call
        tried += 1
        if encode == "json":
            payload = json.dumps(args)
        elif encode == "double":
            payload = json.dumps(json.dumps(args))
        elif encode == "fence":
            payload = f"```json\n{json.dumps(args)}\n```"
        elif encode == "raw":
            payload = args if isinstance(args, str) else repr(args)
        else:
            payload = args
        out = dispatch(vault, name, payload)
        assert isinstance(out, str)
        result = call_tool(vault, name, payload)  # the same call, told apart: an error is JSON
        if result.is_error:
            data = json.loads(result.text)
            assert data.get("kind") != "InternalError", data
        succeeded += not result.is_error
        assert SECRET not in out and SECRET not in result.text

    run()
    assert tree(outside) == before_outside
    assert_vault_layout(vault.root)
    record_property("inputs_tried", tried)
    record_property("tool_inputs", tried)
    record_property("tool_calls_ok", succeeded)


def test_tool_arguments_that_are_a_huge_json_number_get_a_usage_error(setup):
    from vault_mem.adapters.tools import call_tool

    vault, _ = setup
    res = call_tool(vault, "remember", "9" * 5000)
    assert res.is_error and res.data["kind"] == "UsageError", res.text


# -- CLI ----------------------------------------------------------------------------------------
CLI_CASES = [
    ["remember", "../../outside/pwned", "-d", "escape"],
    ["remember", "/tmp/abs-key", "-d", "escape"],
    ["remember", "ok-key", "-d", "x\n---\nsource: user"],
    ["remember", "ok-key2", "-d", "fine", "--tags", "a,,b, ,c\n", "--expires", "2026-02-30"],
    ["remember", "ok-key3", "-d", "fine", "--body-file", "/nonexistent/file"],
    ["remember", "ok-key4", "-d", "fine", "--body", "---\nsource: user\n---\n"],
    ["get", "../outside/secret"],
    ["recall", '"', "NEAR(", "*", "--", "-k", "0"],
    ["undo", "--", "-x"],
    # command-line bytes that are not UTF-8 (Python hands them over as lone surrogates)
    ["remember", "ok-key5", "-d", os.fsdecode(b"caf\xff"), "--tags", os.fsdecode(b"t\xfe")],
    ["recall", os.fsdecode(b"\xff\xfe kettle")],
]


def test_fuzz_cli_hostile_arguments(setup, record_property):
    vault, outside = setup
    before_outside = tree(outside)
    for args in CLI_CASES:
        proc = cli(*args, root=vault.root, text=True)
        assert proc.returncode in (0, 1, 2), (args, proc.returncode, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        if proc.returncode:
            assert proc.stderr.strip().splitlines()[-1].startswith(("error:", "usage:", "vault-mem")), (
                args,
                proc.stderr,
            )
        assert SECRET not in proc.stdout
    # a body file that is not UTF-8 is refused, never stored as an empty body
    bad = outside.parent / "latin1.txt"
    bad.write_bytes("caf\xe9".encode("latin-1"))
    proc = cli("remember", "latin", "-d", "Latin-1 body", "--body-file", str(bad), root=vault.root, text=True)
    assert proc.returncode == 2 and "not UTF-8" in proc.stderr, proc.stderr
    proc = cli(
        "remember",
        "latin",
        "-d",
        "Latin-1 body",
        root=vault.root,
        text=False,
        input="caf\xe9".encode("latin-1"),
    )
    assert proc.returncode == 2 and b"not UTF-8" in proc.stderr, proc.stderr
    assert not (vault.root / "facts/latin.md").exists()
    assert tree(outside) == before_outside
    assert_vault_layout(vault.root)
    record_property("inputs_tried", len(CLI_CASES) + 2)
    record_property("cli_inputs", len(CLI_CASES) + 2)


# -- injection, symlinks, YAML tricks -----------------------------------------------------------
def test_frontmatter_injection_cannot_forge_fields(setup):
    from vault_mem.adapters.tools import call_tool
    from vault_mem.errors import InvalidMemoryError

    vault, _ = setup
    with pytest.raises(InvalidMemoryError, match="one line"):
        vault.remember("inj", "x\n---\nsource: user", "b")
    with pytest.raises(InvalidMemoryError, match="does not read back as written"):
        vault.remember("inj", "x", "---\nsource: user\n---\nrest\n")
    for desc in ("x\x85source: user", "x\u2028source: user\u2029pinned: true", "x\rsource: user"):
        with pytest.raises(InvalidMemoryError, match="one line"):  # YAML would fold these line breaks
            vault.remember("inj", desc, "body")
    for desc in ("x --- source: user", "x: y", "'x' # source: user", '"x"\tsource: user', "x\x1b[2Jsource"):
        vault.remember("inj", desc, "body")
        mem = vault.get("inj")
        assert (mem.description, mem.source, mem.pinned) == (desc, "agent", False)
    payload = "s\n---\nsource: user\n---"
    res = call_tool(vault, "remember", {"key": "inj2", "description": "d", "scope": payload})
    assert res.is_error and "scope must be one short line" in res.text  # a scope is a name: one line
    res = call_tool(vault, "remember", {"key": "inj2", "description": "d", "tags": ["t\u2028source: user"]})
    assert not res.is_error, res.text
    vault.remember("inj3", "d", extra={"origin": payload})  # a field of a person's own: any text
    for key in ("inj2", "inj3"):
        assert vault.get(key).source == "agent", key
    assert vault.get("inj3").meta["origin"] == payload
    assert vault.sidecar.doctor() == []


def test_symlinks_never_lead_outside_the_vault(setup):
    from vault_mem.errors import VaultMemError
    from vault_mem.model.memory import Memory

    vault, outside = setup
    root = vault.root
    (root / "facts/evil.md").symlink_to(outside / "secret.md")
    (root / "facts/dangling.md").symlink_to(outside / "created-through-link.md")
    os.rename(root / "notes", root / "notes.real")
    (root / "notes").symlink_to(outside / "dir", target_is_directory=True)
    before_outside = tree(outside)
    vault.reconcile(force=True)
    assert SECRET not in json.dumps(vault.list())
    assert vault.recall(SECRET).hits == []
    problems = {p.path: p.reason for p in vault.sidecar.problems()}
    assert "outside the vault" in problems["facts/evil.md"]
    assert "outside the vault" in problems["notes/leak.md"]
    for key in ("evil", "leak"):
        with pytest.raises(VaultMemError):
            vault.get(key)
        with pytest.raises(VaultMemError):
            vault.remember(key, "overwrite through a link", "x", type="note" if key == "leak" else "fact")
    with pytest.raises(VaultMemError, match="symlink"):
        vault.remember("planted", "a new note through the linked folder", "x", type="note")
    with pytest.raises(VaultMemError, match="symlink"):  # a bulk import takes the same checks
        vault.import_memories([Memory("bulk-fact", "fact", {"description": "a fact"}),
                               Memory("planted-bulk", "note", {"description": "through the link"})],
                              message="import")
    assert not (root / "facts/bulk-fact.md").exists()  # nothing of a refused import is written
    # a dangling link is replaced by a real file: nothing is created at its target
    vault.remember("dangling", "replaces a dangling link", "x")
    assert not (root / "facts/dangling.md").is_symlink()
    assert tree(outside) == before_outside, "something was written outside the vault"
    assert not (root / ".vault-mem/pending.json").exists()
    (root / "notes").unlink()
    os.rename(root / "notes.real", root / "notes")
    vault.remember("after", "a write after the link is gone", "x", type="note")


EVIL_FILES = {
    "alias-bomb": "---\ndescription: bomb\na: &a [x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b]\n"
    "d: [*c, *c, *c, *c, *c, *c, *c, *c]\n---\n",
    "merge-key": "---\nbase: &base {source: user}\n<<: *base\ndescription: merge\n---\n",
    "python-object": "---\ndescription: x\nf: !!python/object/apply:os.system ['touch {marker}']\n---\n",
    "python-name": "---\ndescription: !!python/name:os.system\n---\n",
    "bad-date": "---\ndescription: x\ncreated: 2026-02-30\n---\n",
    "bad-timestamp": "---\ndescription: x\nupdated: 2026-13-01T10:00:00\n---\n",
    "bad-float": "---\ndescription: x\nf: !!float abc\n---\n",
    "huge-int": "---\ndescription: x\nn: " + "9" * 5000 + "\n---\n",
    "deep-nesting": "---\ndescription: x\nf: " + "[" * 3000 + "]" * 3000 + "\n---\n",
    "second-frontmatter": "---\ndescription: real\n---\n---\ndescription: hidden\n---\n",
    "not-a-mapping": "---\n- a\n- b\n---\n",
    "binary": "---\ndescription: x\n---\n\x00\x01",
    "latin1": None,
    "set-key": "---\ndescription: x\n? [a, b]\n: c\n---\n",
    "control-char": "---\ndescription: bell\x07here\nsource: user\n---\n",
    "escape-char": "---\ndescription: x\ntags: [a\x1b[31m, b]\n---\n",
}


@pytest.mark.slow
def test_yaml_tricks_in_hand_edited_files_are_reported_safely(setup, record_property):
    from vault_mem.adapters.tools import call_tool
    from vault_mem.errors import VaultMemError

    vault, outside = setup
    root = vault.root
    marker = outside / "pwned"
    for name, text in EVIL_FILES.items():
        path = root / "facts" / f"{name}.md"
        if text is None:
            path.write_bytes("---\ndescription: caf\xe9\n---\n".encode("latin-1"))
        else:
            path.write_text(text.replace("{marker}", str(marker)), encoding="utf-8")
    listed = cli("list", root=root, text=True)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    doctor = cli("doctor", root=root, text=True)
    assert "Traceback" not in doctor.stderr, doctor.stderr
    for name in EVIL_FILES:
        assert f"unusable file 'facts/{name}.md'" in doctor.stdout, (name, doctor.stdout)
        assert f"\n{name} " not in "\n" + listed.stdout
    vault.reconcile(force=True)
    for name in EVIL_FILES:
        with pytest.raises(VaultMemError):
            vault.get(name)
        with pytest.raises(VaultMemError):
            vault.remember(name, "overwrite", "x")
        res = call_tool(vault, "get", {"key": name})
        assert res.is_error and res.data["kind"] != "InternalError", res.text
    assert not marker.exists(), "!!python/object was executed"
    assert vault.sidecar.doctor() == []
    record_property("inputs_tried", len(EVIL_FILES))
    record_property("hostile_files", len(EVIL_FILES))


# -- huge bodies --------------------------------------------------------------------------------
BIG = 50 * 1024 * 1024
_RSS_PROBE = """
import resource, subprocess, sys
stdin = open(sys.argv[1], 'rb') if sys.argv[1] != '-' else subprocess.DEVNULL
proc = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True)
print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stderr.write(proc.stderr.decode('utf-8', 'replace'))
"""


def _peak_rss_kib(stdin_file: str, argv: list[str]) -> tuple[int, int, str]:
    """Exit code and peak RSS (KiB) of one CLI run, measured by a probe whose only child it is.

    A subprocess on purpose: the peak memory of a process of its own is the measurement."""
    proc = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, stdin_file, sys.executable, "-m", "vault_mem", *argv],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    code, rss = proc.stdout.split()
    return int(code), int(rss), proc.stderr


@pytest.mark.slow
def test_50mb_body_is_refused_without_reading_it_whole(setup, tmp_path, record_property):
    vault, _ = setup
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        chunk = b"0123456789abcdef" * 65536  # 1 MiB
        for _ in range(BIG // len(chunk)):
            fh.write(chunk)
    small = tmp_path / "small.txt"
    small.write_text("a small body\n")
    base = ["--vault", str(vault.root), "remember", "big", "-d", "A huge body"]
    code, baseline, err = _peak_rss_kib(str(small), [*base, "--body-file", "-"])
    assert code == 0, err
    results = {}
    for how, stdin_file, extra in (("stdin", str(big), []), ("body-file", "-", ["--body-file", str(big)])):
        code, peak, err = _peak_rss_kib(stdin_file, [*base, *extra])
        assert code == 1 and "over the vault's limit" in err  # a refusal, not a usage error and "Traceback" not in err, err
        results[how] = peak
        # well under one copy of the body above the baseline (reading it whole would be >= 50 MB)
        assert (peak - baseline) * 1024 < BIG / 4, (how, peak, baseline)
    # the Python API: the caller holds the body already; vault-mem must not copy it
    from vault_mem.errors import InvalidMemoryError

    body = "x" * BIG
    tracemalloc.start()
    try:
        with pytest.raises(InvalidMemoryError, match="over the vault's limit"):
            vault.remember("big", "A huge body", body)
        _, peak_py = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak_py < BIG / 10, peak_py
    record_property("baseline_rss_kib", baseline)
    record_property("peak_rss_stdin_kib", results["stdin"])
    record_property("peak_rss_body_file_kib", results["body-file"])
    record_property("api_peak_traced_bytes", peak_py)
    print("50 MB body: baseline", baseline, "KiB; peaks", results, "KiB; API traced peak", peak_py, "bytes")
from conftest import new_vault
