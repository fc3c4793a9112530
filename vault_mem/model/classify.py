"""Which memory type a piece of text is, from what it says: a heuristic, pure, for importers.

Agents' instruction files (CLAUDE.md, a Claude Code MEMORY.md, Codex's memories) mix four kinds
of line. :func:`classify` tells them apart by the first signal that holds, in this order:

1. **procedure**: numbered steps (two or more ``1.`` lines);
2. **decision**: a choice with its history or reason: *decided*, *chose*, *opted for*, *went
   with*, *settled on*, or "we / the project use X ... because ...";
3. **preference**: a rule on how to work that opens with *always*, *never*, *prefer*, *avoid*,
   *don't*, *make sure*, or that says *prefers*;
4. **procedure**: a build / test / deploy command: the line opens with *run*, *build*, *deploy*,
   *release*, *install*, *to build ...*, or holds a code span that starts with a command
   (``make``, ``pnpm``, ``go``, ``cargo``, ``./script``...);
5. **preference**: any other imperative (*use*, *keep*, *write*, *name*...: "Use 2-space
   indentation");
6. **fact**: a statement (*is*, *are*, *uses*, *lives in*, *runs*, *architecture: ...*).

No signal (a bare word, an empty line) gives ``None``: the caller decides (a section heading, the
source's own type, else fact). A preference is only ever what the text asks for, so a statement
is never typed preference by default.
"""

from __future__ import annotations

import re

_MARKUP = re.compile(r"^\s*(?:>\s*)?(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?")
_EMPHASIS = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w))")
_STEP = re.compile(r"^\s*\d+[.)]\s+\S", re.MULTILINE)

_DECISION = re.compile(
    r"\b(decided|chose|chosen|opted (?:for|to)|went with|settled on|the decision (?:was|is) to)\b"
    r"|\b(?:we|the (?:project|team|app|repo|codebase|service))\s+(?:use|uses|picked|moved to|switched to|"
    r"prefer|prefers)\b.*\bbecause\b")
_PREFERENCE_START = re.compile(r"^(always|never|prefer|avoid|don'?t|do not|please|make sure|be sure|no more)\b")
_PREFERS = re.compile(r"\b(prefers|preferred)\b")
_COMMAND_START = re.compile(
    r"^(run|build|deploy|release|install|reinstall|compile|migrate|publish|bootstrap|tag|set up|"
    r"to (?:build|test|deploy|release|install|run|start|set up|lint|publish|migrate))\b")
_TOOLS = (r"make|just|npm|npx|pnpm|yarn|bun|node|deno|go|cargo|rustc|python3?|pip|uv|poetry|pytest|tox|"
          r"nox|ruff|docker|docker-compose|kubectl|helm|terraform|git|gh|bash|sh|mvn|gradle|gradlew|"
          r"dotnet|bundle|rake|rails|mix|composer|php|fly|vercel|wrangler|flutter|dart|swift|xcodebuild|"
          r"\./[\w./-]+|bin/[\w./-]+|scripts/[\w./-]+")
_COMMAND_SPAN = re.compile(rf"`(?:{_TOOLS})(?:\s[^`]*)?`")
#: imperative verbs that open a rule; none that is as often a noun ("Lint runs on every push")
_IMPERATIVE = frozenset({
    "use", "keep", "write", "put", "name", "add", "make", "follow", "ask", "check", "do", "be", "give",
    "let", "commit", "format", "wrap", "return", "place", "mark", "document", "comment", "split",
    "favor", "favour", "stick", "try", "ensure", "include", "leave", "treat", "handle", "raise",
    "throw", "validate", "limit", "indent", "reply", "answer", "explain", "respond", "mention", "cite",
    "stop", "skip", "pin", "prefix", "annotate", "squash", "rebase"})
_FACT = re.compile(
    r"\b(is|are|was|were|has|have|had|uses|lives|live|runs|contains|holds|stores|needs|requires|"
    r"depends|takes|pins|tracked|located|written|built|based|hosted|deployed|reset|talks|talking|"
    r"means|owns|serves|calls|reads|writes|supports|targets)\b"
    r"|^(we use|the project uses|architecture|overview|stack|layout)\b")

_ABOUT_THE_FILE = re.compile(
    r"\b(this file|this (?:index|folder|document)|topic files?|(?:see|listed|shown) below|"
    r"the files? below|one (?:line|entry) (?:each|per)|provides guidance to claude)\b")


def _plain(line: str) -> str:
    return " ".join(_EMPHASIS.sub("", _MARKUP.sub("", line, count=1)).split()).lower()


def classify(text: str) -> str | None:
    """The memory type ``text`` says it is (see the module docstring), or ``None`` without a
    signal."""
    lines = [_plain(ln) for ln in text.splitlines() if ln.strip()]
    if not lines:
        return None
    first, whole = lines[0], " ".join(lines)
    if len(_STEP.findall(text)) >= 2:
        return "procedure"
    if _DECISION.search(whole):
        return "decision"
    if _PREFERENCE_START.match(first) or _PREFERS.search(first):
        return "preference"
    if _COMMAND_START.match(first) or _COMMAND_SPAN.search(first):
        return "procedure"
    if first.split(" ", 1)[0].strip(",:;") in _IMPERATIVE:
        return "preference"
    if _FACT.search(whole):
        return "fact"
    return None


def is_about_the_file(line: str) -> bool:
    """True for a line that talks about the file it is in ("Topic files in this folder:", "This
    file provides guidance to Claude Code ..."): a lead-in, not a memory."""
    return bool(_ABOUT_THE_FILE.search(_plain(line)))
