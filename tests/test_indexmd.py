from vault_mem.model.indexmd import HEADER, IndexEntry, render_index


def _e(i, type_="fact", pinned=False):
    return IndexEntry(f"k{i:03d}", type_, f"facts/k{i:03d}.md", f"memory number {i}", "2026-11-29", pinned)


def test_deterministic_sections_and_pointers():
    entries = [_e(1, "preference"), _e(2), IndexEntry("d", "decision", "decisions/d.md", "chose x", "2026-01-02")]
    text = render_index(entries, 3, budget_tokens=2000)
    assert text == render_index(list(entries), 3, budget_tokens=2000)
    assert text.startswith(HEADER)
    assert text.index("## Preferences") < text.index("## Facts") < text.index("## Decisions") < text.index("## Procedures")
    assert "- d (2026-01-02): chose x → [decisions/d.md](decisions/d.md)\n" in text
    assert "more: use recall" not in text


def test_budget_cuts_and_counts_the_rest():
    entries = [_e(i) for i in range(500)]
    text = render_index(entries, 500, budget_tokens=500)
    assert len(text) <= 500 * 4 + 60
    shown = text.count("\n- ")
    assert f"+{500 - shown} more: use recall to search them." in text


def test_adding_one_entry_changes_one_line():
    entries = [_e(i) for i in range(10)]
    before = render_index(entries, 10, budget_tokens=2000).splitlines()
    after = render_index([_e(99)] + entries, 11, budget_tokens=2000).splitlines()
    import difflib

    changed = [line for line in difflib.ndiff(before, after) if line[:1] in "+-"]
    assert changed == ["+ - k099 (2026-11-29): memory number 99"]
