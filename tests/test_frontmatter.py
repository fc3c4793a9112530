"""The file format through python-frontmatter: the strict handler, and rewrites that change only
what a write changes (DESIGN §1, §3). Real files, the real parser, real vaults and git."""

from __future__ import annotations

import datetime as dt
import random
import string
import subprocess

import frontmatter
import pytest
from stress import sized
from conftest import git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vault_mem.errors import MalformedFileError, SecretError
from vault_mem.model import policy
from vault_mem.model.conflicts import mark_conflict, strip_conflict
from vault_mem.model.frontmatter_handler import HANDLER, StrictYAMLHandler, same_value
from vault_mem.model.memory import (
    Memory,
    build_meta,
    memory_from_bytes,
    parse_memory,
    render_memory,
    rewrite_in_place,
    rewrite_memory,
)

# hypothesis examples per property: 300 or 200 at full size, 100 or 75 everyday (tests/stress.py).
# Outside CI each run draws new ones, so a developer's runs add up to more than either size; in CI
# (hypothesis's own "ci" profile, derandomized) every run tries the same first ones
EXAMPLES_300 = sized(300, 100)
EXAMPLES_200 = sized(200, 75)

REL = "preferences/editor.md"

PERSON = """---
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


def _update(text: str, rel: str = REL, *, today: dt.date = dt.date(2027, 1, 5), body: str | None = None,
            **kw) -> tuple[Memory, str]:
    """What the write path does for an update: build the new meta from the file's, rewrite."""
    old = parse_memory(text, rel)
    extra = kw.pop("extra", None)
    meta = build_meta(old.meta, description=kw.pop("description", old.description), today=today,
                      source=kw.pop("source", None), tags=kw.pop("tags", None), extra=extra)
    new = Memory(old.key, old.type, meta, old.body if body is None else body)
    out = rewrite_in_place(text, new)
    assert out is not None, "the in-place edit fell back"
    back = parse_memory(out, rel)
    assert same_value(back.meta, new.meta) and back.body.rstrip("\n") == new.body.rstrip("\n")
    return new, out


def _changed_lines(a: str, b: str) -> list[tuple[str, str]]:
    la, lb = a.splitlines(keepends=True), b.splitlines(keepends=True)
    assert len(la) == len(lb), (a, b)
    return [(x, y) for x, y in zip(la, lb, strict=True) if x != y]


# --- an update changes only what it changes -------------------------------------------------


def test_a_description_update_keeps_every_other_byte():
    _, out = _update(PERSON, description="Uses Helix (since Oct 2026)")
    assert _changed_lines(PERSON, out) == [
        ("description: Uses Helix as the main editor\n", "description: Uses Helix (since Oct 2026)\n"),
        ("updated: 2026-11-29\n", "updated: 2027-01-05\n"),
    ]


def test_an_identical_rewrite_is_the_same_bytes():
    old = parse_memory(PERSON, REL)
    assert rewrite_in_place(PERSON, old) == PERSON
    assert rewrite_memory(PERSON, old) == PERSON


def test_a_changed_block_list_is_re_emitted_as_a_block_list_in_place():
    _, out = _update(PERSON, tags=["editor", "helix", "lsp"])
    assert "tags:\n  - editor\n  - helix\n  - lsp\n\nlinks:\n" in out
    assert out.replace("  - helix\n  - lsp\n", "  - tools\n").replace("2027-01-05", "2026-11-29") == PERSON


def test_a_changed_flow_list_stays_a_flow_list_and_an_indentless_one_stays_indentless():
    text = ("---\ndescription: d\ncreated: 2026-01-01\nupdated: 2026-01-01\ntags: [a, b]\n"
            "refs:\n- lib/a.dart\n- lib/b.dart\n---\n\nbody\n")
    _, out = _update(text, tags=["a", "c"], extra={"refs": ["lib/c.dart"]})
    assert "tags: [a, c]\nrefs:\n- lib/c.dart\n---\n" in out


def test_a_removed_field_goes_and_its_neighbours_stay():
    _, out = _update(PERSON, extra={"reviewer": None}, today=dt.date(2026, 11, 29))
    assert "reviewer" not in out
    assert out == PERSON.replace('reviewer: "Ada Lovelace"\n', "")


def test_a_new_field_goes_before_the_closing_fence():
    _, out = _update(PERSON, extra={"pinned": True}, today=dt.date(2026, 11, 29))
    assert out == PERSON.replace("zeta_last: true\n---\n", "zeta_last: true\npinned: true\n---\n")


def test_a_changed_value_keeps_its_quotes_and_its_comment():
    _, out = _update(PERSON, source="agent", extra={"reviewer": "Grace Hopper"}, today=dt.date(2026, 11, 29))
    assert _changed_lines(PERSON, out) == [
        ("source: user            # user | agent | inferred | imported\n",
         "source: agent            # user | agent | inferred | imported\n"),
        ('reviewer: "Ada Lovelace"\n', 'reviewer: "Grace Hopper"\n'),
    ]


def test_comments_inside_a_changed_field_are_kept_above_it():
    links = {"issue": "https://example.com/43", "related": ["a", "b"]}
    _, out = _update(PERSON, extra={"links": links}, today=dt.date(2026, 11, 29))
    assert "\n# the original request\nlinks:\n  issue: https://example.com/43\n  related: [a, b]\n" in out
    assert parse_memory(out, REL).comments.splitlines()[-1] == "# the original request"


def test_the_body_is_kept_unless_it_changed():
    text = PERSON.replace("support.\n", "support.\n\n\n")  # a person's trailing blank lines
    _, out = _update(text, description="Uses Helix")
    assert out.endswith("support.\n\n\n")
    _, out = _update(text, body="Moved to Zed.")
    assert out.endswith("zeta_last: true\n---\n\nMoved to Zed.\n")
    _, out = _update(text, body="")
    assert out.endswith("zeta_last: true\n---\n")


def test_crlf_and_a_bom_survive_an_update():
    text = "\ufeff" + PERSON.replace("\n", "\r\n")
    _, out = _update(text, description="Uses Helix")
    assert out.startswith("\ufeff---\r\n") and "\n" not in out.replace("\r\n", "")
    assert "description: Uses Helix\r\n" in out and "  - tools\r\n" in out


def test_a_block_scalar_with_a_header_comment_and_kept_newlines():
    text = ("---\ndescription: d\nnotes: |+  # kept as typed\n  one\n  two\n\n# after\n"
            "created: 2026-01-01\n---\n\nbody\n")
    mem = parse_memory(text, "facts/k.md")
    assert mem.meta["notes"] == "one\ntwo\n\n"
    assert mem.comments == "# kept as typed\n# after"
    _, out = _update(text, "facts/k.md", description="e")  # untouched: byte for byte
    assert out == text.replace("description: d\n", "description: e\n").replace(
        "created: 2026-01-01\n", "created: 2026-01-01\nupdated: 2027-01-05\n")
    _, out = _update(text, "facts/k.md", extra={"notes": "three\n"})
    assert "# kept as typed\nnotes: |\n  three\n# after\n" in out  # the blank line was the old value's


@pytest.mark.parametrize("text", [
    "---\n{description: d, created: 2026-01-01}\n---\n\nbody\n",  # a flow mapping
    "---\ndescription: d\ndescription: e\n---\n\nbody\n",  # a repeated field: which one is it?
    "---\n? description\n: d\n---\n\nbody\n",  # an explicit key
    "---\n%YAML 1.1\n---\n",  # a directive is no frontmatter of ours (and not closed right)
])
def test_shapes_the_field_edit_does_not_take_fall_back_to_a_full_render(text):
    try:
        old = parse_memory(text, "facts/k.md")
    except MalformedFileError:
        return  # refused when read: nothing to rewrite
    new = Memory(old.key, old.type, {**old.meta, "description": "new"}, old.body)
    assert rewrite_in_place(text, new) is None
    assert rewrite_memory(text, new) == render_memory(new)


def test_a_reordered_meta_falls_back_to_a_full_render():
    old = parse_memory(PERSON, REL)
    meta = dict(reversed(list(old.meta.items())))
    new = Memory(old.key, old.type, meta, old.body)
    assert rewrite_in_place(PERSON, new) is None
    assert list(parse_memory(rewrite_memory(PERSON, new), REL).meta) == list(meta)


def test_a_type_change_is_a_change():
    # 1 == 1.0 == True in Python: the bytes of '1' must not stay for a True
    text = "---\ndescription: d\npriority: 1\nwhen: 2026-01-01\n---\n"
    old = parse_memory(text, "facts/k.md")
    new = Memory("k", "fact", {**old.meta, "priority": True, "when": dt.datetime(2026, 1, 1, 9, 30)}, "")
    out = rewrite_in_place(text, new)
    assert out is not None and "priority: true\n" in out
    assert parse_memory(out, "facts/k.md").meta["when"] == dt.datetime(2026, 1, 1, 9, 30)


def test_conflict_marks_keep_a_persons_layout_and_strip_back_exactly():
    rel = "preferences/editor.conflict-abcdef0.md"
    marked = mark_conflict(PERSON.encode(), rel, key="editor", who="A <a@x>", today=dt.date(2026, 3, 4))
    assert marked.decode().startswith(PERSON.split("zeta_last: true\n")[0])
    assert marked.decode().endswith("zeta_last: true\nconflict_of: editor\nconflict_author: A <a@x>\n"
                                    "conflict_date: 2026-03-04\n---\n\nThe user moved to Helix for its "
                                    "built-in LSP support.\n")
    again = mark_conflict(marked, rel, key="editor", who="B <b@x>", today=dt.date(2026, 3, 5))
    assert again == marked.replace(b"A <a@x>", b"B <b@x>").replace(b"03-04", b"03-05")  # in place
    assert strip_conflict(again, REL) == PERSON.encode()


# --- reading stays strict -------------------------------------------------------------------

DEEP = "---\ndescription: d\nx: " + "[" * 60 + "]" * 60 + "\n---\n"


@pytest.mark.parametrize("data, message", [
    (b"---\na: &x [1]\nb: *x\ndescription: d\n---\n",
     "facts/x.md: frontmatter is not valid YAML (YAML anchors (&name) are not allowed in frontmatter)"),
    (b"---\ndescription: d\nb: *x\n---\n",
     "facts/x.md: frontmatter is not valid YAML (YAML aliases (*name) are not allowed in frontmatter)"),
    (b"---\ndescription: a\n---\n---\nsource: user\n---\nbody\n",
     "facts/x.md: a second frontmatter block follows the first; merge them into one"),
    (b"\n\n---\ndescription: a\n---\n", "facts/x.md: no frontmatter (the file must start with a '---' line)"),
    (b"---\ndescription: x\n", "facts/x.md: frontmatter is not closed (add a '---' line after it)"),
    (b"---\n- a\n- b\n---\n", "facts/x.md: frontmatter must be 'field: value' lines"),
    (b"---\n1: a\ndescription: d\n---\n", "facts/x.md: frontmatter field names must be text"),
    (b"---\ndescription: caf\xe9\n---\n",
     "facts/x.md: is not UTF-8 text (bad byte at offset 20); re-save it as UTF-8"),
    (b"---\ndescription: d\n---\nbin\x00ary\n", "facts/x.md: contains NUL bytes (binary file?)"),
    (DEEP.encode(), "facts/x.md: frontmatter is not valid YAML (frontmatter is nested more than 50 levels deep)"),
    (b"---\ndescription: d\nwhen: 2026-02-30\n---\n",
     "facts/x.md: frontmatter is not valid YAML (day is out of range for month)"),
    (b"---\ndescription: ''\n---\n", "facts/x.md: 'description:' must be one non-empty line of text"),
])
def test_bad_files_are_refused_with_the_same_messages(data, message):
    with pytest.raises(MalformedFileError) as err:
        memory_from_bytes(data, "facts/x.md", max_bytes=100_000)
    assert str(err.value) == message


def test_the_handler_is_strict_through_frontmatter_loads_too():
    # python-frontmatter turns a ValueError from split into "no metadata": ours raise otherwise
    for bad in ("---\na: &x 1\ndescription: d\n---\n", "---\ndescription: d\n---\n---\nb: 1\n---\n",
                "---\n- a\n---\n", "---\ndescription: d\n"):
        with pytest.raises(MalformedFileError):
            frontmatter.loads(bad, handler=StrictYAMLHandler())
    post = frontmatter.loads("---\ndescription: d\ncreated: 2026-01-02\n---\n\nbody\n", handler=HANDLER)
    assert post.metadata == {"description": "d", "created": dt.date(2026, 1, 2)} and post.content == "body"
    assert HANDLER.detect("\ufeff---\r\ndescription: d\r\n---\r\n") and not HANDLER.detect("--- \n")


def test_a_bom_and_crlf_are_read_as_before():
    mem = parse_memory("\ufeff---\r\ndescription: d\r\ncreated: 2026-01-02\r\n---\r\nbody\r\n", "facts/x.md")
    assert mem.meta == {"description": "d", "created": dt.date(2026, 1, 2)} and mem.body == "body\r\n"


def test_render_is_the_house_format():
    meta = {"description": "d", "created": dt.date(2026, 1, 2), "updated": dt.date(2026, 1, 2),
            "tags": ["a", "b"], "notes": "two\nlines", "links": {"x": 1}}
    assert render_memory(Memory("k", "fact", meta, "body")) == (
        "---\ndescription: d\ncreated: 2026-01-02\nupdated: 2026-01-02\ntags: [a, b]\n"
        "notes: |-\n  two\n  lines\nlinks:\n  x: 1\n---\n\nbody\n")
    # a field called 'content' or 'handler' is just a field (python-frontmatter's Post(**meta) would clash)
    mem = Memory("k", "fact", {"description": "d", "content": "c", "handler": "h"}, "")
    assert parse_memory(render_memory(mem), "facts/k.md").meta == mem.meta


# --- property: render -> parse, and rewrite -> parse -----------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30)
_line = _text.map(str.strip).filter(bool)
_scalar = st.one_of(_text, st.integers(-10**6, 10**6), st.booleans(),
                    st.dates(dt.date(1990, 1, 1), dt.date(2100, 1, 1)),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))
_value = st.one_of(_scalar, st.lists(_line, max_size=4),
                   st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), _scalar, max_size=3))
_names = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda n: n not in ("description", "created", "updated"))
_meta = st.builds(lambda d, extra: {"description": d, "created": dt.date(2026, 1, 2), **extra},
                  _line, st.dictionaries(_names, _value, max_size=6))
_body = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00\r"),
                max_size=200).filter(lambda b: not b.lstrip("\n").startswith("---"))


@settings(max_examples=EXAMPLES_200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meta=_meta, body=_body)
def test_render_then_parse_is_the_identity(meta, body):
    text = render_memory(Memory("k", "fact", meta, body))
    back = parse_memory(text, "facts/k.md")
    assert same_value(back.meta, meta)
    assert back.body == (body + "\n" if body and not body.endswith("\n") else body)


@settings(max_examples=EXAMPLES_200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=_meta, new=_meta, data=st.data())
def test_rewrite_changes_only_the_changed_fields(old, new, data):
    # new: some of old's fields (in old's order, some with new values), then new fields at the end
    keep = [k for k in old if k == "description" or data.draw(st.booleans(), label=f"keep {k}")]
    meta = {k: new.get(k, old[k]) if data.draw(st.booleans(), label=f"change {k}") else old[k] for k in keep}
    meta.update({k: v for k, v in new.items() if k not in old})
    text = render_memory(Memory("k", "fact", old, "body\n"))
    out = rewrite_in_place(text, Memory("k", "fact", meta, "body\n"))
    assert out is not None
    back = parse_memory(out, "facts/k.md")
    assert same_value(back.meta, meta) and list(back.meta) == list(meta)
    for k, value in meta.items():  # a field whose value stayed keeps its line(s), byte for byte
        if k in old and same_value(old[k], value):
            one = render_memory(Memory("k", "fact", {k: value}, "")).split("\n", 1)[1].rsplit("---\n", 1)[0]
            assert one in out


# --- the secret gate reads what a rewrite keeps ------------------------------------------------


def _aws_key() -> str:
    rng = random.Random(11)  # built at run time: no literal for secret scanners to flag
    return "AK" + "IA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))


def test_comments_are_read_for_the_secret_gate():
    text = f"---\ndescription: d\n# old key {_aws_key()}\nsource: user  # fine\n---\n\nbody\n"
    mem = parse_memory(text, "facts/k.md")
    assert mem.comments == f"# old key {_aws_key()}\n# fine"
    assert policy.secret_findings(key=mem.key, description=mem.description, body=mem.body, meta=mem.meta,
                                  comments=mem.comments) == [("frontmatter comment", "AWS access key", None)]
    # a '#' inside a value is no comment (in plain YAML text only ' #' starts one)
    assert parse_memory('---\ndescription: "see #42"\nlang: C#\nurl: x.org/#top\n---\n', "facts/k.md").comments == ""


def test_an_update_of_a_file_whose_comment_holds_a_key_is_refused(vault):
    root = vault.root
    vault.remember("build-box", "How the build box is reached", "Over SSH.")
    path = root / "facts/build-box.md"
    key = _aws_key()
    text = path.read_text().replace("description:", f"# CI used {key} once\ndescription:")
    path.write_text(text)
    # the vault's pre-commit hook would refuse it (see below): a person skipping it, or a clone's commit
    git(root, "commit", "-q", "--no-verify", "-am", "a person's note")
    with pytest.raises(SecretError) as err:
        vault.remember("build-box", "How the build box is reached (via the bastion)", "Over SSH.")
    assert "frontmatter comment" in str(err.value) and key not in str(err.value)
    assert path.read_text() == text and git(root, "status", "--porcelain") == ""
    # with the comment gone the same update goes through, and keeps the person's other bytes
    path.write_text(text.replace(f"# CI used {key} once\n", "# reached over SSH\n"))
    git(root, "commit", "-q", "-am", "drop the key")
    vault.remember("build-box", "How the build box is reached (via the bastion)", "Over SSH.")
    assert "# reached over SSH\ndescription: How the build box is reached (via the bastion)\n" in path.read_text()


def test_the_pre_commit_hook_and_scan_read_comments(vault):
    from vault_mem.ops import review

    root = vault.root
    rel = "facts/k.md"
    (root / "facts").mkdir(exist_ok=True)
    (root / rel).write_text(f"---\ndescription: CI bot\ntags: [ci]  # was {_aws_key()}\n---\n\nbody\n")
    assert [(f["field"], f["kind"]) for f in review.scan(vault)] == [("frontmatter comment", "AWS access key")]
    git(root, "add", rel)
    proc = subprocess.run(["git", "commit", "-m", "hand edit"], cwd=root, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1 and "frontmatter comment" in proc.stderr and _aws_key() not in proc.stderr


def test_an_agent_update_commits_only_the_lines_it_changes(vault):
    root = vault.root
    (root / "preferences").mkdir(exist_ok=True)
    (root / REL).write_text(PERSON)
    git(root, "add", REL)
    git(root, "commit", "-q", "-m", "a person's memory")
    result = vault.remember("editor", "Uses Helix (since Oct 2026)", parse_memory(PERSON, REL).body,
                            type="preference", source=None)
    assert result.action == "update"
    diff = git(root, "show", "--format=", "--unified=0", "HEAD", "--", REL)
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    today = dt.date.today().isoformat()
    assert changed == ["-description: Uses Helix as the main editor", "+description: Uses Helix (since Oct 2026)",
                       "-updated: 2026-11-29", f"+updated: {today}"]


# --- the C loader gives what the strict Python loader gives -----------------------------------

TRICKY_FRONTMATTER = [
    "description: Uses Helix as the main editor\ncreated: 2026-10-02\nupdated: 2026-11-29\ntags: [editor, tools]\n",
    "description: d\ntags:\n  - a\n  - b\nsource: user\npinned: true\nexpires: 2027-06-01\n",
    "description: d\ntags:\n- a\n- b\n",
    "description: 'quoted: yes'\nother: \"double\"\nempty:\nnull_: ~\nnone: null\n",
    "description: d\nwhen: 2026-02-30\n",
    "description: d\nupdated: 2026-13-01T10:00:00\n",
    "description: d\nat: 2026-01-02 10:30:00\nat2: 2026-01-02T10:30:00Z\nat3: 2026-01-02t10:30:00.5+02:00\n",
    "description: d\nn: " + "9" * 4000 + "\n",
    "description: d\nn: " + "9" * 5000 + "\n",
    "description: d\nn: 1_000\no: 0o17\np: 017\nh: 0x1F\nb: 0b101\ns: 1:20\nf: 1e3\ng: .inf\nh2: -.Inf\nnan: .nan\n",
    "description: d\nflags: [yes, No, on, OFF, y, n, true, False]\n",
    "description: d\nx: " + "[" * 60 + "]" * 60 + "\n",
    "description: d\nx: " + "[" * 20 + "]" * 20 + "\n",
    "description: d\nx: " + "- " * 30 + "a\n",
    "description: d\n" + "".join("  " * i + f"k{i}:\n" for i in range(45)) + "  " * 45 + "v: 1\n",
    "description: x\x85source: user\n",
    "description: x\u2028source: user\u2029pinned: true\n",
    "description: x\u2028---\u2028source: user\n",
    "description: a\ta\n",
    "description: bell\x07here\n",
    "description: esc\x1b[31m\n",
    "description: del\x7f\n",
    "description: \x9f\n",
    "description: caf\u00e9 \u20ac \u4e2d\u6587 \ud55c\n",
    "description: emoji \U0001f4a5\n",
    "\ufeffdescription: bom\n",
    "description: d # a comment\n# another\nsource: user\n",
    "description: d\nnote: |\n  two\n  lines\nfolded: >-\n  a\n  b\n",
    "description: d\nnote: |+ # kept\n  x\n\n",
    "a: &x [1]\nb: *x\ndescription: d\n",
    "description: d\nb: *x\n",
    "base: &base {source: user}\n<<: *base\ndescription: merge\n",
    "description: d\n<<: {source: user}\n",
    "description: d\nf: !!python/object/apply:os.system ['id']\n",
    "description: !!str 12\n",
    "description: d\nf: !!float abc\n",
    "%YAML 1.1\n---\ndescription: d\n",
    "description: d\n...\n",
    "description: d\n---\nx: 1\n",
    "description: d\n? [a, b]\n: c\n",
    "description: d\n? a\n: c\n",
    "description: d\ndescription: twice\n",
    "- a\n- b\n",
    "just text\n",
    "1: a\ndescription: d\n",
    "[a, b]: c\ndescription: d\n",
    "description: d\nmap: {a: 1, b: [x, y], c: {d: e}}\n",
    "description: d\nmap: {a: 1, b\n",
    "description: 'unclosed\n",
    "description: \"esc \\u00e9 \\x41 \\/ \\N \\L \\P \\_\"\n",
    "description: @at\n",
    "description: `tick`\n",
    "description: a: b\n",
    "description: a :b\nk:v\n",
    "description: d\n  indented: wrong\n",
    " description: d\nx: 1\n",
    "description: d\nlist: [a, b,]\nl2: [a: 1, b]\n",
    "description: d\nk: - a\n",
    "description: -\nk: ---x\nm: -- \n",
    "description: ? a\n",
    "description: d\nempty_list: []\nempty_map: {}\n",
    "description: \"\"\nx: ''\n",
    "description: d\nx: 'it''s'\n",
    "description: d\r\nsource: user\r\n",
    "description: d\rsource: user\r",
    "description: d\n\n\nsource: user\n\n",
    "\n\ndescription: d\n",
    "description: d\nx: 12:30:45\ny: 190:20:30.15\nz: -1:30\n",
    "description: d\nx: 2026-1-2\ny: 2026-01-02 \n",
    "description: d\nkey with spaces: v\n\"quoted key\": v\n'single': v\n",
    "description: long " + "word " * 900 + "\n",
]


def _outcome(load, text):
    try:
        return ("ok", *load(text))
    except MalformedFileError as exc:
        return ("refused", str(exc))


def _same_outcome(text):
    """``load_yaml_and_comments`` gives the same with and without the C loader."""
    from vault_mem.model import frontmatter_handler as fh

    fast = _outcome(fh.load_yaml_and_comments, text)
    c_loader, fh._CLoader = fh._CLoader, None
    try:
        slow = _outcome(fh.load_yaml_and_comments, text)
    finally:
        fh._CLoader = c_loader
    assert fast[0] == slow[0] and (same_value(fast[1], slow[1]) if fast[0] == "ok" else fast[1] == slow[1]) \
        and fast[2:] == slow[2:], (text, fast, slow)


@pytest.mark.parametrize("text", TRICKY_FRONTMATTER)
def test_the_c_loader_reads_frontmatter_as_the_strict_loader_does(text):
    _same_outcome(text)


def test_the_c_loader_is_used_for_plain_frontmatter_only():
    from vault_mem.model import frontmatter_handler as fh

    if fh._CLoader is None:
        pytest.skip("PyYAML was built without libyaml")
    taken = [t for t in TRICKY_FRONTMATTER if fh._c_loadable(t)]
    assert TRICKY_FRONTMATTER[0] in taken and len(taken) > 20
    for left in ("#", "&", "*", "!", "%", "\\", "\t", "\r", "\x07", "\x85", "\u2028", "\ufeff", "\U0001f4a5"):
        assert not fh._c_loadable(f"description: a{left}b\n"), repr(left)
    assert not fh._c_loadable("description: d\nx: " + "[" * 60 + "]" * 60 + "\n")
    assert not fh._c_loadable("description: d\nn: " + "9" * 5000 + "\n")


def test_the_c_loaders_character_test_of_ascii_text_is_the_full_ones():
    """ASCII text is tested with the ASCII part of the C path's character class (the full class,
    ~1.5 ms to compile, waits for text that is not ASCII): each character, alone and among
    others, is taken or left exactly as the full class takes or leaves it."""
    import re

    from vault_mem.model import frontmatter_handler as fh

    full = re.compile(fh._C_TEXT.pattern)
    for code in range(128):
        for text in (chr(code), f"description: a{chr(code)}b\n"):
            assert (fh._C_ASCII_TEXT.fullmatch(text) is None) == (full.fullmatch(text) is None), repr(text)
    for text in ("description: caf\u00e9\n", "description: a\u2028b\n", "d: \U0001f4a5\n"):
        assert (fh._C_TEXT.fullmatch(text) is None) == (full.fullmatch(text) is None), repr(text)


# Fragments that matter to a YAML scanner; joined at random, they make texts both loaders read
_FRAGMENTS = ["description", "a", "k2", ": ", ":", "- ", "-", " ", "  ", "\n", "\n  ", "\n- ", "[", "]", "{",
              "}", ", ", ",", "'", '"', "|", ">", "|-", "? ", "?", "2026-02-30", "2026-01-02", "12:30:00", "T10:00:00Z",
              "0o17", "017", "1_000", "0x1F", "1e3", ".inf", ".nan", "~", "null", "yes", "No", "on", "=", "<<",
              "...", "---", "@", "`", "\u00e9", "\u4e2d", "\u00a0", "#", "&a ", "*a", "!!str ", "\\", "\t", "\r\n",
              "\x85", "\u2028", "\x07", "%", "9" * 30]


@settings(max_examples=EXAMPLES_300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(_FRAGMENTS), max_size=40), lead=st.booleans())
def test_the_c_loader_agrees_with_the_strict_loader_on_random_frontmatter(parts, lead):
    _same_outcome(("description: d\n" if lead else "") + "".join(parts))


@pytest.mark.parametrize("char", [chr(c) for c in [*range(1, 9), 11, 12, *range(14, 32), 127, 0x80, 0x9f]])
def test_a_control_character_in_frontmatter_is_a_malformed_file(char):
    for text in (f"---\ndescription: a{char}b\n---\n", f"---\ndescription: d\ntags: [x{char}]\n---\n"):
        with pytest.raises(MalformedFileError, match="frontmatter is not valid YAML"):
            memory_from_bytes(text.encode(), "facts/x.md", max_bytes=100_000)


@settings(max_examples=EXAMPLES_200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meta=_meta)
def test_the_c_loader_agrees_with_the_strict_loader_on_rendered_frontmatter(meta):
    yaml_text = HANDLER.split(render_memory(Memory("k", "fact", meta, "")))[0]
    _same_outcome(yaml_text)


# --- the C writer: libyaml writes a frontmatter only where it writes the pure writer's bytes -----

# Pieces that matter to a YAML writer's choice of style, quoting, escapes and line folding
_AWKWARD = ["a", "word", " ", "  ", ":", ": ", "-", "- ", "---", "...", "#", " #", "'", '"', "''", "\\", "{",
            "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "~", "null", "yes", "No", "on",
            "OFF", "y", "true", "1", "017", "0x1F", "1_000", "1.5", "1e3", ".inf", ".nan", "12:30:45",
            "2026-01-02", "2026-01-02 10:00:00", "<<", "=", "\u00e9", "\u00a0", "\u4e2d", "\u20ac", "\ud7ff",
            "\ue000", "\ufffd", "\U0001f600", "\n", "\n\n", " \n", "\n ", "\t", "\r", "\x85", "\u2028",
            "\u2029", "\ufeff", "\x07", "\x7f", "\u00e9" * 70]  # lines past the width: below
_awkward_text = st.one_of(st.lists(st.sampled_from(_AWKWARD), max_size=6).map("".join),
                          st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
_awkward_key = st.one_of(_awkward_text, st.sampled_from(["", "k" * 99, "k" * 100, "k" * 101, "k" * 127,
                                                         "\u00e9" * 50, "\u00e9" * 51, "\u00e9" * 64]))
_awkward_scalar = st.one_of(_awkward_text, st.integers(), st.floats(), st.booleans(), st.none(), st.dates(),
                            st.datetimes(timezones=st.sampled_from([None, dt.timezone.utc,
                                                                    dt.timezone(dt.timedelta(hours=-5))])))
_awkward_value = st.recursive(_awkward_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_awkward_key, inner, max_size=3)), max_leaves=8)


def _pure(meta):
    from vault_mem.model import frontmatter_handler as fh

    return fh._dump(meta, fh._Dumper, 2)


@settings(max_examples=EXAMPLES_200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(meta=st.dictionaries(_awkward_key, _awkward_value, max_size=6))
def test_the_c_writer_writes_the_pure_writers_bytes(meta):
    """Every frontmatter is written byte for byte as the pure-Python writer writes it (the house
    format of every committed memory file), whichever writer :func:`dump_yaml` takes."""
    from vault_mem.model import frontmatter_handler as fh

    assert fh.dump_yaml(meta) == _pure(meta), meta
    if fh._CDumper is not None and fh._c_dumpable(meta):
        assert fh._dump(meta, fh._CDumper, 2) == _pure(meta), meta


@pytest.mark.parametrize("meta", [
    {"description": "Uses Helix as the main editor", "created": dt.date(2026, 1, 2), "updated": dt.date(2026, 1, 2),
     "source": "agent", "tags": ["editor", "tools"], "scope": "project", "pinned": True, "expires": None},
    {"description": "Caf\u00e9 \u4e2d\u6587 \u20ac: 'quoted' \"and\" # not a comment, - dash", "n": 1.5,
     "yes": "no", "on": ["off", "1", "", "2026-01-02"], "links": {"issue": "https://x/42", "related": ["a", "b"]},
     "when": dt.datetime(2026, 1, 2, 10, 0, tzinfo=dt.timezone.utc)},
])
def test_the_c_writer_is_taken_for_ordinary_frontmatter(meta):
    from vault_mem.model import frontmatter_handler as fh

    if fh._CDumper is None:
        pytest.skip("PyYAML was built without libyaml")
    assert fh._c_dumpable(meta)
    assert fh._dump(meta, fh._CDumper, 2) == _pure(meta) == fh.dump_yaml(meta)


def test_the_c_writer_leaves_what_it_writes_otherwise_to_the_pure_writer():
    from vault_mem.model import frontmatter_handler as fh

    for text in ("a\nb", "a\n\n", "\n", "a\tb", "a\rb", "\x85", "\u2028", "\u2029", "\ufeff", "\x07", "\x7f",
                 "\U0001f600"):
        for meta in ({"k": text}, {"k": [text]}, {"k": {"a": text}}, {text: 1}):
            assert not fh._c_dumpable(meta), meta
            assert fh.dump_yaml(meta) == _pure(meta)
    for key in ("", "k" * 101, "\u00e9" * 51):
        assert not fh._c_dumpable({key: 1}) and not fh._c_dumpable({"k": {key: 1}})
    assert fh._c_dumpable({"k" * 100: 1}) and fh._c_dumpable({"\u00e9" * 50: 1})
    # a date-time in a flow list (quoted there, so tagged: `!!timestamp` against libyaml's `!`),
    # bare, with microseconds, with a time zone, beside text, and in a list inside a block list
    for when in (dt.datetime(2026, 12, 6, 10, 0), dt.datetime(2026, 12, 6, 10, 0, 0, 5),
                 dt.datetime(2026, 12, 6, 10, 0, tzinfo=dt.timezone.utc)):
        for meta in ({"seen": [when]}, {"seen": [when, "x"]}, {"seen": [[when], None]}):
            assert not fh._c_dumpable(meta), meta
            assert fh.dump_yaml(meta) == _pure(meta) and "!!timestamp" in _pure(meta)
        for meta in ({"seen": when}, {"seen": [None, when]}, {"seen": [{"at": when}]}):  # plain there: alike
            assert fh._c_dumpable(meta) and fh.dump_yaml(meta) == _pure(meta), meta
            if fh._CDumper is not None:
                assert fh._dump(meta, fh._CDumper, 2) == _pure(meta), meta
    quoted = fh._QuotedStr("x")
    assert not fh._c_dumpable({"k": quoted}) and not fh._c_dumpable({"k": ("a",)}) and not fh._c_dumpable({1: "a"})
    # what neither writer represents fails as it did (the pure writer's error)
    with pytest.raises(Exception) as pure_err:
        _pure({"k": object()})
    with pytest.raises(type(pure_err.value)):
        fh.dump_yaml({"k": object()})
    # a line past the writers' width (10,000): folded alike
    for text in ("x" * 10_050, "word " * 2010, "&" + "word " * 2010, "'word " * 2010):
        meta = {"k": text, "l": [text]}
        assert fh._c_dumpable(meta) and fh.dump_yaml(meta) == _pure(meta)
    # every key length either side of both writers' simple-key limits (126 characters, 128 bytes)
    for n in range(90, 131):
        for key in ("k" * n, "\u00e9" * n, "'" + "k" * n, "- " + "\u4e2d" * n):
            meta = {key: 1, "m": {key: [key]}}
            assert fh.dump_yaml(meta) == _pure(meta)
            if fh._CDumper is not None and fh._c_dumpable(meta):
                assert fh._dump(meta, fh._CDumper, 2) == _pure(meta), key


def test_without_libyaml_the_pure_writer_writes(monkeypatch):
    from vault_mem.model import frontmatter_handler as fh

    meta = {"description": "d", "tags": ["a", "b"]}
    monkeypatch.setattr(fh, "_CDumper", None)
    assert fh.dump_yaml(meta) == _pure(meta) == "description: d\ntags: [a, b]\n"
