"""Write policy: the secret gate and the lint that every write path runs before touching a file.

Three checks, in the order a writer calls them:

- :func:`check_write` refuses a write whose key, description, body or any frontmatter field
  holds something that looks like a credential (:class:`~vault_mem.errors.SecretError`). The
  message names the kind, the field and the line, never the value, and says what to store
  instead. Detection lives in :mod:`vault_mem.model.secrets`.
- :func:`check_description_policy` refuses a description longer than 200 characters or with
  more than one line (:class:`~vault_mem.errors.InvalidMemoryError`).
- :func:`lint_write` returns warnings, not refusals: things that look like a transcript, pasted
  command output, narration of a session, or a decision with no reason. Each warning is one
  sentence that says what to do. The memory is still written, and the agent sees the warning.

Pure functions: no I/O, no state, no dependency beyond the standard library.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from typing import Any

from vault_mem.errors import InvalidMemoryError, SecretError
from vault_mem.model.secrets import SecretFinding, find_secrets, shannon_entropy

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "SecretFinding",
    "check_description_policy",
    "check_write",
    "find_secrets",
    "lint_write",
    "shannon_entropy",
]

MAX_DESCRIPTION_CHARS = 200

_WHAT_TO_DO = (
    "Nothing was written. Remove the value and record where the secret lives instead, "
    "e.g. 'API key in 1Password item X', not the value."
)


# --- secret gate ---------------------------------------------------------------------------


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _field_texts(meta: Mapping[str, Any], description: str) -> Iterator[tuple[str, str]]:
    """(field label, text to scan) for each frontmatter field, nested values included.

    A field is scanned both as its bare value and as ``name: "value"``, so a ``password:`` field
    is judged as a password assignment while an arbitrary field is judged on its value alone.
    """

    def walk(label: str, name: str, value: Any) -> Iterator[tuple[str, str]]:
        if isinstance(value, Mapping):
            for k, v in value.items():
                yield label, str(k)
                yield from walk(label, str(k), v)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in value:
                yield from walk(label, name, item)
        elif value is not None and not isinstance(value, (bool, dt.date)):
            text = str(value)
            yield label, text
            if "\n" not in text:
                quote = "'" if '"' in text else '"'
                yield label, f"{name}: {quote}{text}{quote}"

    for name, value in meta.items():
        if name == "description" and value == description:
            continue  # the same text is checked as the description itself
        label = f"frontmatter field '{name}'"
        yield label, str(name)
        yield from walk(label, str(name), value)


def secret_findings(*, key: str, description: str, body: str, meta: Mapping[str, Any],
                    comments: str = "") -> list[tuple[str, str, int | None]]:
    """(field, kind, line) for each suspected credential in a memory, without repeats; the line
    only for the body. What the write gate refuses and what ``vault-mem scan`` reports.
    ``comments`` is the text of a file's frontmatter comments (``Memory.comments``): a rewrite
    keeps them, so they are read like the fields."""
    fields: list[tuple[str, str]] = [
        ("key", key or ""),
        ("description", description or ""),
        ("body", body or ""),
    ]
    fields.extend(_field_texts(meta or {}, description or ""))
    if comments:
        fields.append(("frontmatter comment", comments))
    out: list[tuple[str, str, int | None]] = []
    for label, text in fields:
        for finding in find_secrets(text):
            found = (label, finding.kind, _line_of(text, finding.start) if label == "body" else None)
            if found not in out:
                out.append(found)
    return out


def check_write(*, key: str, description: str, body: str, meta: Mapping[str, Any],
                comments: str = "") -> None:
    """Refuse a write that would put a credential in a memory file or a commit message.

    Raises :class:`SecretError` naming every field that holds a suspected credential, the kind
    and the line, and never any part of the value. Returns ``None`` when the write is clean.
    ``comments``: the frontmatter comments the written file will keep (see :func:`secret_findings`).
    """
    problems: list[str] = []
    for label, kind, line in secret_findings(key=key, description=description, body=body, meta=meta,
                                             comments=comments):
        where = f" (line {line})" if line is not None else ""
        article = "an" if kind[0] in "AEIOaeio" else "a"  # "an AWS key", "a URL"
        problem = f"the {label} holds what looks like {article} {kind}{where}"
        if problem not in problems:
            problems.append(problem)
    if problems:
        raise SecretError(f"refused: {'; '.join(problems)}. {_WHAT_TO_DO}")


# --- description policy --------------------------------------------------------------------


def check_description_policy(description: str) -> None:
    """Refuse a description that is not one line of at most 200 characters.

    The description is what INDEX.md and every search hit show first, so it must be short.
    """
    if "\n" in description or "\r" in description:
        raise InvalidMemoryError("description must be one line: put the details in the body")
    n = len(description.strip())
    if n > MAX_DESCRIPTION_CHARS:
        raise InvalidMemoryError(
            f"description is {n} characters long (at most {MAX_DESCRIPTION_CHARS}): "
            "shorten it to one line saying what this memory is and put the details in the body"
        )


# --- lint ----------------------------------------------------------------------------------

_TURN = re.compile(
    r"^[ \t>*_]*(?:user|assistant|human|ai|system|agent|claude|chatgpt|gpt|model|bot|me|you)[*_]*[ \t]*:",
    re.IGNORECASE | re.MULTILINE,
)
_QUOTED = re.compile(r"^[ \t]*>", re.MULTILINE)
_PROMPT = re.compile(
    r"^[ \t]*(?:\$|[\w.-]+@[\w.-]+:[^\n$#]{0,80}[$#]|>>>|PS [A-Z]:\\[^\n>]{0,80}>|C:\\[^\n>]{0,80}>)[ \t]"
)
_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\)|^[ \t]+at [\w$.<>]+\([^)\n]*\)$|^Exception in thread |^panic: |"
    r"^goroutine \d+ \[", re.MULTILINE,
)
_LOG_LINE = re.compile(
    r"^[ \t]*\[?(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?|\d{2}:\d{2}:\d{2}|"
    r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2})|"
    r"^[ \t]*\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE)\]?[ :]",
    re.MULTILINE,
)
_NARRATION = re.compile(
    r"\b(?:the user (?:asked|wants|told|wanted|requested|said)(?: me)?|user asked me|"
    r"i (?:just|have just|then|was asked)\b|in this (?:session|conversation|chat)|"
    r"during (?:this|our|the) (?:session|conversation|chat)|earlier (?:today|in (?:this|the) "
    r"(?:session|conversation))|as (?:you|the user) (?:asked|requested)|let me |i(?:'ll| will) now|"
    r"i'm going to|you asked me)",
    re.IGNORECASE,
)
# Words that introduce a reason. "instead of" and "over" only name the alternative, so they
# do not count.
_REASON = re.compile(
    r"\b(?:because|since|so|so that|to avoid|to keep|to prevent|in order to|reasons?|why|due to|"
    r"given that|as a result|rationale|trade-?offs?|otherwise|motivat\w*|prevents?|avoids?|caused?|"
    r"needed for|required by|lets|allows?|enables?|means|benefits?|pros|cons|better|worse|cheaper|"
    r"faster|slower|simpler|safer|easier|harder)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)


def _command_output(body: str) -> bool:
    """A shell prompt followed by lines of output, rather than a command in a procedure."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if not _PROMPT.match(line):
            continue
        out = 0
        for nxt in lines[i + 1:i + 6]:
            if not nxt.strip() or _PROMPT.match(nxt) or _FENCE.match(nxt):
                break
            if re.match(r"[ \t]*(?:[-*+] |\d+\. |#)", nxt):
                break  # Markdown list or heading: the author's words, not the program's
            out += 1
        if out >= 2:
            return True
    return False


def lint_write(*, type: str, description: str, body: str) -> list[str]:
    """Warnings for an agent write that is allowed but probably not what a memory should be.

    Calls :func:`check_description_policy` first, so an over-long description raises
    :class:`InvalidMemoryError` here instead of becoming a warning.
    """
    check_description_policy(description)
    text = body or ""
    warnings: list[str] = []
    nonblank = [ln for ln in text.splitlines() if ln.strip()]
    turns = _TURN.findall(text)
    quoted = len(_QUOTED.findall(text))
    if len(turns) >= 2 or (nonblank and quoted >= 4 and quoted * 2 >= len(nonblank)):
        warnings.append(
            "This looks like a conversation transcript (turn markers such as 'User:'/'Assistant:' "
            "or many quoted lines); store the conclusion it led to, not the exchange."
        )
    if _TRACEBACK.search(text):
        warnings.append(
            "This holds a stack trace; record the cause and the fix in a sentence or two, not the trace."
        )
    if _command_output(text):
        warnings.append(
            "This looks like pasted command output (a shell prompt followed by its output); keep "
            "the command and the one fact its output showed."
        )
    log_lines = len(_LOG_LINE.findall(text))
    if log_lines >= 5:
        warnings.append(
            f"This holds {log_lines} timestamped log lines; summarize what they showed instead of "
            "pasting them."
        )
    if _NARRATION.search(f"{description}\n{text}"):
        warnings.append(
            "This narrates a session ('the user asked me to...', 'I just...'); write the lasting "
            "fact in the third person, e.g. 'Prefers X because Y'."
        )
    if type == "decision" and not _REASON.search(text):
        warnings.append(
            "This decision does not say why; add the reason to the body ('because...', "
            "'to avoid...') so a later reader can tell when it stops applying."
        )
    return warnings
