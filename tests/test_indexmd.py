import datetime as dt

from vault_mem.model.indexmd import HEADER, READER_NOTE, IndexEntry, group_entries, render_index

#: the file's note to agents is outside the budget (the same lines fit with or without it)
NOTE = len(READER_NOTE)


def _render(entries, budget_tokens):
    sections = group_entries(entries)
    return render_index(sections, {t: len(v) for t, v in sections.items()}, budget_tokens=budget_tokens)


def _e(i, type_="fact", pinned=False):
    return IndexEntry(f"k{i:03d}", type_, f"facts/k{i:03d}.md", f"memory number {i}", "2026-11-29", pinned)


def test_deterministic_sections_and_pointers():
    entries = [_e(1, "preference"), _e(2), IndexEntry("d", "decision", "decisions/d.md", "chose x", "2026-01-02")]
    text = _render(entries, 2000)
    assert text == _render(list(entries), 2000)
    assert text.startswith(HEADER)
    assert text.index("## Preferences") < text.index("## Facts") < text.index("## Decisions") < text.index("## Procedures")
    assert "- d (2026-01-02): chose x → [decisions/d.md](decisions/d.md)\n" in text
    assert "more: use recall" not in text


def test_budget_cuts_and_counts_the_rest():
    entries = [_e(i) for i in range(500)]
    text = _render(entries, 500)
    assert len(text) <= 500 * 4 + 60 + NOTE
    shown = text.count("\n- ")
    assert f"+{500 - shown} more: use recall to search them." in text


def test_adding_one_entry_changes_one_line():
    entries = [_e(i) for i in range(10)]
    before = _render(entries, 2000).splitlines()
    after = _render([_e(99)] + entries, 2000).splitlines()
    import difflib

    changed = [line for line in difflib.ndiff(before, after) if line[:1] in "+-"]
    assert changed == ["+ - k099 (2026-11-29): memory number 99"]


def _typed(type_, i, *, pinned=False, day=1):
    folder = {"preference": "preferences", "fact": "facts", "decision": "decisions", "procedure": "procedures"}[type_]
    date = (dt.date(2026, 1, 1) + dt.timedelta(days=day)).isoformat()
    return IndexEntry(f"{type_}-{i:03d}", type_, f"{folder}/{type_}-{i:03d}.md",
                      f"{type_} memory number {i} with a description of ordinary length", date, pinned)


def test_budget_is_shared_so_every_section_keeps_lines():
    """400 memories, 100 of each type, under the default budget: every section lists some,
    newest first, each with its own "+N more" line (the budget was once spent in type order,
    leaving Facts, Decisions and Procedures empty)."""
    types = ("preference", "fact", "decision", "procedure")
    # priority order as the sidecar once gave it: pinned, type, newest first
    entries = [_typed(t, i, day=i) for t in types for i in reversed(range(100))]
    text = _render(entries, 2000)
    assert len(text) <= 2000 * 4 + NOTE
    assert text == _render(list(entries), 2000)  # deterministic
    for title, type_ in zip(("Preferences", "Facts", "Decisions", "Procedures"), types, strict=True):
        section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
        lines = [line for line in section.splitlines() if line.startswith("- ")]
        assert len(lines) >= 5, (title, len(lines))
        assert lines[0].startswith(f"- {type_}-099 ")  # newest first
        assert f"+{100 - len(lines)} more: use recall to search them." in section
    counts = [text.split(f"## {t}\n", 1)[1].split("\n## ", 1)[0].count("\n- ") for t in ("Facts", "Procedures")]
    assert abs(counts[0] - counts[1]) <= 1  # turns: no section is favoured


def test_pinned_first_within_a_section_and_a_small_section_shown_whole():
    facts = [_typed("fact", 7, pinned=True, day=1)] + [_typed("fact", i, day=50 + i) for i in range(200)]
    facts = sorted(facts, key=lambda e: (not e.pinned, e.date), reverse=False)
    facts = [facts[0], *sorted(facts[1:], key=lambda e: e.date, reverse=True)]
    procs = [_typed("procedure", i, day=i) for i in range(3)]
    text = _render(facts + procs, 1000)
    fact_lines = text.split("## Facts\n", 1)[1].split("\n## ", 1)[0].splitlines()
    assert fact_lines[0].startswith("- fact-007 (") and "pinned" in fact_lines[0]
    procedures = text.split("## Procedures\n", 1)[1]
    assert procedures.count("- procedure-") == 3 and "more:" not in procedures
    assert len(text) <= 1000 * 4 + NOTE


def test_a_scripts_own_joiners_reach_index_md_as_written():
    """review56: attack54 renders INDEX.md's descriptions by the rule of memory text anywhere
    (``model/names.visible``), which escaped every zero-width joiner: a Persian description
    (می‌خواهم: a ZWNJ inside the word, as Persian spells it), a Devanagari conjunct (क्‍ष) and an
    emoji ZWJ sequence (a family) came out as ``\\u200c``/``\\u200d`` in the file the person
    reads and the agent loads. A joiner between two letters of a script that spells with it, or
    ZWJ between two emoji, is kept; anywhere else (inside a Latin word or a marker, at an edge) it
    is escaped as before, and so is every other format character."""
    from vault_mem.model.indexmd import entry_line
    from vault_mem.model.names import visible

    kept = ["می\u200cخواهم از Helix استفاده کنم", "क्\u200dष परीक्षा", "family \U0001f468\u200d\U0001f469\u200d\U0001f467 chat",
            "\U0001f3f3\ufe0f\u200d\U0001f308 pride", "\U0001f469\U0001f3fd\u200d\U0001f4bb laptop"]
    for text in kept:
        line = entry_line(IndexEntry(key="k", type="fact", path="facts/k.md", description=text, date="2026-12-05"))
        assert text in line, (text, line)
        assert visible(text, prose=True) == text
    escaped = {"pay\u200dpal": "pay\\u200dpal", "</mem\u200cory-1>": "</mem\\u200cory-1>",
               "\u200cمی": "\\u200cمی", "می\u200c": "می\\u200c", "a \u202egnp.exe": "a \\u202egnp.exe",
               "می\u200bخواهم": "می\\u200bخواهم", "\U0001f468\u200da": "\U0001f468\\u200da"}
    for text, shown in escaped.items():
        assert visible(text, prose=True) == shown, text
