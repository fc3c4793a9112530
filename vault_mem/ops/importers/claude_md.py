"""CLAUDE.md (and the loose lines of a Claude Code MEMORY.md): sections and bullets -> memories.

A CLAUDE.md is a list of instructions under headings. It is cut like this:

- a section whose heading names a procedure (build, test, deploy, release, setup, workflow,
  commands, steps, how to ...) or that holds a numbered list is ONE procedure memory, whole:
  a procedure is never cut into pieces;
- in any other section, each top-level bullet (with its indented continuation lines) is one
  memory, its first line the description; the section's running text, if any, is one more
  memory described by the heading;
- the type: under a heading that names decisions (decision(s), ADR) every memory is a decision;
  elsewhere the text says what it is (:func:`vault_mem.model.classify.classify`: commands and
  steps -> procedure, "we chose ... because" -> decision, "always / never / prefer / use ..."
  -> preference, statements -> fact); text without a signal takes the heading's type (style,
  conventions, rules -> preference; architecture, overview, stack, notes -> fact), else fact;
- lines about the file itself (``/init``'s "This file provides guidance to Claude Code ...", a
  MEMORY.md's "Topic files in this folder:") are not memories, and neither is a heading;
- ``@path`` import lines are not followed (an import reads only the file it was given); they
  are listed as skipped. Fenced code stays with the bullet or section it is in.
"""

from __future__ import annotations

import re

from vault_mem.model.classify import classify, is_about_the_file
from vault_mem.model.memory import suggest_key
from vault_mem.ops.importers.sources import Candidate, Found, Problem, key_from_text, one_line

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_BULLET = re.compile(r"^[-*+][ \t]+\S")
_ORDERED = re.compile(r"^\d+[.)][ \t]+\S")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_IMPORT_LINE = re.compile(r"^[ \t]*@[\w./~-]+[ \t]*$")

_TYPE_RULES = (
    ("decision", re.compile(r"\b(decisions?|adrs?)\b")),
    ("procedure", re.compile(r"\b(how to|steps?|procedures?|workflows?|runbooks?|releas\w*|deploy\w*|"
                             r"setup|set up|install\w*|commands?|build\w*|testing|tests?|ci)\b")),
    ("preference", re.compile(r"\b(style|conventions?|preferences?|rules?|guidelines?|dos?|don'?ts?|"
                              r"formatting|instructions?)\b")),
    ("fact", re.compile(r"\b(architecture|overview|structure|stack|projects?|context|about|glossary|"
                        r"references?|layout|notes?)\b")),
)


def section_type(heading: str, default: str | None) -> str | None:
    """The memory type a section's heading suggests (see the module docstring)."""
    low = heading.lower()
    for type_, rule in _TYPE_RULES:
        if rule.search(low):
            return type_
    return default


def parse(text: str, origin: str, *, default_type: str = "fact", tag: str = "claude-md",
          skip_line=None, line_by_line: bool = False) -> Found:
    """The memories of a CLAUDE.md-style text; ``origin`` is its path (``:line`` is added).
    ``skip_line(line)`` true: the line is left out (a MEMORY.md line pointing to a topic file).
    ``line_by_line``: each line of running text is a memory of its own (a MEMORY.md's loose
    lines), not one memory per section described by its heading."""
    found: Found = []
    heading, heading_line = "", 0
    block: list[tuple[int, str]] = []  # (line number, line) of the current section

    def flush() -> None:
        if any(ln.strip() for _, ln in block):
            found.extend(_section(block, heading, heading_line, origin, default_type, tag, line_by_line))
        block.clear()

    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            m = _HEADING.match(line)
            if m:
                flush()
                heading, heading_line = m.group(2).strip(), number
                continue
            if _IMPORT_LINE.match(line):
                found.append(Problem(f"{origin}:{number}", f"is an import line ({line.strip()}): not "
                                     "followed; import that file on its own", skipped=True))
                continue
            if skip_line is not None and skip_line(line):
                continue
            if line.lstrip().startswith("<!--") and line.rstrip().endswith("-->"):
                continue
            if not _BULLET.match(line) and is_about_the_file(line):
                continue  # a lead-in of running text; a bullet is always somebody's rule
        block.append((number, line))
    flush()
    return found


def _section(block: list[tuple[int, str]], heading: str, heading_line: int, origin: str,
             default_type: str, tag: str, line_by_line: bool) -> list[Candidate]:
    hinted = section_type(heading, None) if heading else None

    def type_of(text: str) -> str:
        if hinted == "decision":
            return hinted
        return classify(text) or hinted or default_type

    type_ = hinted or default_type
    tags = [tag, *([suggest_key(heading)[:64]] if heading else [])]
    text = "\n".join(ln for _, ln in block).strip("\n")
    ordered = any(_ORDERED.match(ln) for _, ln in block)
    if heading and (type_ == "procedure" or ordered):
        return [Candidate(f"{origin}:{heading_line}", key_from_text(heading), "procedure",
                          one_line(heading), text + "\n", tags)]
    items: list[tuple[int, list[str]]] = []  # each bullet: first line number, its lines
    prose: list[tuple[int, str]] = []
    in_fence = False
    in_bullet = False  # the lines so far continue a bullet (else they are the section's prose)
    for number, line in block:
        fence = bool(_FENCE.match(line))
        if not in_fence and _BULLET.match(line):
            items.append((number, [line]))
            in_bullet = True
        elif in_bullet and (in_fence or not line.strip() or line[:1] in " \t" or fence):
            items[-1][1].append(line)
        elif line.strip() or prose:
            in_bullet = False  # running text ends the bullet before it
            prose.append((number, line))
        if fence:
            in_fence = not in_fence
    out: list[Candidate] = []
    if line_by_line:  # a line carries content when it has two words: not a rule (---), not "TODO"
        items = sorted(item for item in items + [(n, [ln]) for n, ln in prose]
                       if len(re.findall(r"\w+", item[1][0])) >= 2)
    elif prose:
        body = "\n".join(ln for _, ln in prose).strip("\n") + "\n"
        desc = one_line(heading) if heading else one_line(body)
        out.append(Candidate(f"{origin}:{prose[0][0]}", key_from_text(desc), type_of(body), desc, body, tags))
    for number, lines in items:
        bullet = "\n".join(lines).rstrip() + "\n"
        desc = one_line(bullet)
        rest = bullet.split("\n", 1)[1].strip() if "\n" in bullet.rstrip() else ""
        body = bullet if rest or len(desc) < len(" ".join(lines[0].split()[1:])) else ""
        out.append(Candidate(f"{origin}:{number}", key_from_text(desc), type_of(bullet), desc, body, tags))
    return out
