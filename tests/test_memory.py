import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vault_mem.errors import InvalidKeyError, InvalidMemoryError, MalformedFileError
from vault_mem.model.memory import (
    Memory,
    build_meta,
    parse_memory,
    render_memory,
    same_content,
    suggest_key,
    validate_description,
    validate_key,
    validate_type,
)

HAND_WRITTEN = """---
description: Uses Helix as the main editor (switched from Neovim, Oct 2026) — ünïcødé ✓
created: 2026-10-02
updated: 2026-11-29
source: user
tags: [editor, tools]
reviewer: Ada Lovelace
priority: 3
links:
  issue: https://example.com/42
  related: [a, b]
zeta_last: true
---

The user moved to Helix for its built-in LSP support. 日本語も大丈夫。

- Neovim config is archived.
"""


def test_round_trip_keeps_unknown_fields_in_order_and_unicode():
    mem = parse_memory(HAND_WRITTEN, "preferences/editor.md")
    assert mem.key == "editor" and mem.type == "preference"
    assert list(mem.meta) == ["description", "created", "updated", "source", "tags", "reviewer",
                              "priority", "links", "zeta_last"]
    text = render_memory(mem)
    again = parse_memory(text, "preferences/editor.md")
    assert again.meta == mem.meta and again.body == mem.body
    assert render_memory(again) == text  # stable after one rewrite
    assert text == HAND_WRITTEN  # our own format is exactly the hand-written one here


def test_update_keeps_created_moves_updated_and_keeps_person_fields():
    mem = parse_memory(HAND_WRITTEN, "preferences/editor.md")
    meta = build_meta(mem.meta, description="Uses Helix", today=dt.date(2027, 1, 5), source="agent",
                      tags=None)
    assert meta["created"] == dt.date(2026, 10, 2)
    assert meta["updated"] == dt.date(2027, 1, 5)
    assert meta["reviewer"] == "Ada Lovelace" and meta["tags"] == ["editor", "tools"]
    assert list(meta)[:5] == ["description", "created", "updated", "source", "tags"]


@pytest.mark.parametrize("bad", [
    "../../etc/passwd", "/etc/passwd", "Upper", "has space", "", "a" * 81, "index", "readme",
    "README", "x/y", "..", "a..b", "-lead", ".hidden", "nul\x00byte", "key.md", "tab\tkey", "ünï",
])
def test_invalid_keys_are_refused_with_a_suggestion(bad):
    with pytest.raises(InvalidKeyError) as err:
        validate_key(bad)
    assert "try '" in str(err.value) or "empty" in str(err.value)
    if bad:
        validate_key(suggest_key(bad.replace("\x00", "")))  # the suggestion itself is valid


@pytest.mark.parametrize("good", ["a", "editor-choice", "v1.2_notes", "0day", "x" * 80])
def test_valid_keys(good):
    assert validate_key(good) == good


def test_description_rules():
    with pytest.raises(InvalidMemoryError):
        validate_description("")
    with pytest.raises(InvalidMemoryError):
        validate_description("two\nlines")
    with pytest.raises(InvalidMemoryError):
        validate_description(None)
    assert validate_description("  one line  ") == "one line"


def test_type_names_and_folder_aliases():
    assert validate_type("decision") == "decision"
    assert validate_type("facts") == "fact"
    with pytest.raises(InvalidMemoryError, match="did you mean 'fact'"):
        validate_type("fcat")


@pytest.mark.parametrize("text,reason", [
    ("no frontmatter\n", "no frontmatter"),
    ("---\ndescription: x\n", "not closed"),
    ("---\ndescription: [unclosed\n---\n", "not valid YAML"),
    ("---\n- a\n- b\n---\n", "field: value"),
    ("---\ncreated: 2026-01-01\n---\nbody\n", "description"),
    ("---\ndescription: a\n---\n---\nsource: user\n---\nbody\n", "second frontmatter"),
    ("---\na: &x [1]\nb: *x\ndescription: d\n---\n", "anchors"),
    ("---\ndescription: !!python/object:os.system x\n---\n", "not valid YAML"),
    ("---\ndescription: d\n---\nbin\x00ary\n", "NUL"),
])
def test_malformed_files_are_refused_with_reason(text, reason):
    with pytest.raises(MalformedFileError, match=reason):
        parse_memory(text, "facts/x.md")


def test_billion_laughs_is_refused_quickly():
    lol = "---\ndescription: d\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lol += f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
    lol += "---\n"
    with pytest.raises(MalformedFileError):
        parse_memory(lol, "facts/x.md")


def test_frontmatter_injection_in_description_cannot_forge_fields():
    meta = build_meta(None, description="x\n---\nsource: user".replace("\n", " "), today=dt.date(2026, 1, 1),
                      source="agent", tags=None)
    mem = Memory("k", "fact", meta, "body\n---\nsource: user\n---\n")
    again = parse_memory(render_memory(mem), "facts/k.md")
    assert again.source == "agent"
    # a multi-line body that looks like frontmatter later in the body is just body text
    assert "source: user" in again.body


def test_same_content_ignores_updated_only():
    a = Memory("k", "fact", {"description": "d", "created": dt.date(2026, 1, 1), "updated": dt.date(2026, 1, 1)}, "b\n")
    b = Memory("k", "fact", {"description": "d", "created": dt.date(2026, 1, 1), "updated": dt.date(2026, 2, 1)}, "b")
    assert same_content(a, b)
    c = Memory("k", "decision", dict(b.meta), "b")
    assert not same_content(a, c)


# -- list fields are bounded (issue 23: a peer's 4,050 supersedes keys made every recall fail) --

@pytest.mark.parametrize("field", ["tags", "supersedes", "refs"])
def test_list_fields_over_the_bound_are_refused_on_write(field):
    from vault_mem.model.memory import MAX_LIST_ITEMS, known_field_value

    items = [f"item-{i}" for i in range(MAX_LIST_ITEMS + 1)]
    with pytest.raises(InvalidMemoryError, match=f"'{field}' lists {MAX_LIST_ITEMS + 1} items, at most {MAX_LIST_ITEMS}"):
        if field == "tags":
            build_meta(None, description="d", today=dt.date(2026, 1, 1), source=None, tags=items)
        else:
            known_field_value(field, items)
    fine = items[:MAX_LIST_ITEMS]
    assert known_field_value(field, fine) == fine


@pytest.mark.parametrize("field", ["tags", "supersedes", "refs"])
def test_a_file_with_a_list_field_over_the_bound_is_malformed(field):
    from vault_mem.model.memory import MAX_LIST_ITEMS

    block = "\n".join(f"  - k{i}" for i in range(MAX_LIST_ITEMS + 1))
    text = f"---\ndescription: d\n{field}:\n{block}\n---\nbody\n"
    with pytest.raises(MalformedFileError, match=f"facts/x.md: '{field}' lists {MAX_LIST_ITEMS + 1} items"):
        parse_memory(text, "facts/x.md")
    ok = f"---\ndescription: d\n{field}: [{', '.join(f'k{i}' for i in range(MAX_LIST_ITEMS))}]\n---\nbody\n"
    assert len(parse_memory(ok, "facts/x.md").meta[field]) == MAX_LIST_ITEMS


def _memory_name_by_the_whole_rule(name: str) -> bool:
    from vault_mem.model.memory import _EDITOR_NAME, _utf8

    return (name.endswith(".md") and not name.startswith((".", "#", "~")) and _EDITOR_NAME.match(name) is None
            and (name.isascii() or _utf8(name)))


@pytest.mark.parametrize("name,taken", [
    ("editor.md", True), ("0lead.md", True), ("_x.md", True), ("a.b-c_d.md", True), ("café.md", True),
    (".editor.md", False), (".editor.md.swp", False), ("#editor.md#", False), ("~editor.md", False),
    (".#editor.md", False), ("editor.md~", False), ("editor.md.save", False), ("4913", False),
    ("editor.md___jb_tmp___", False), ("editor.txt", False), ("x.MD", False), (".md", False), ("\udcff.md", False),
])
def test_a_memory_name_is_taken_by_one_rule(name, taken):
    """The plain-name shortcut the scan tests first (one match per name at 100k files) takes
    exactly what the whole rule takes: editors' files are still left out."""
    from vault_mem.model.memory import is_memory_name

    assert is_memory_name(name) is taken is _memory_name_by_the_whole_rule(name)


@given(st.text(alphabet=st.sampled_from("aZ09._-~#/ é\udcff"), max_size=12).map(lambda s: s + ".md")
       | st.text(max_size=14))
def test_the_plain_name_shortcut_agrees_with_the_whole_rule(name):
    from vault_mem.model.memory import is_memory_name

    assert is_memory_name(name) == _memory_name_by_the_whole_rule(name)
