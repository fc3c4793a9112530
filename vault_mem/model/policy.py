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

:class:`WritePolicy` bundles these with the key, format and size rules: it is the one object every
write path calls (see its docstring). Pure: no I/O; the only state is a WritePolicy's memo of
the few file contents it vetted last, so the same bytes are not parsed twice in one write.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import shlex
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vault_mem.errors import (
    InvalidMemoryError,
    QuarantinedFileError,
    SecretError,
    SizeLimitError,
    VaultMemError,
)
from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.memory import (
    Memory,
    memory_from_bytes,
    parse_memory,
    render_memory,
    rewrite_memory,
    same_content,
    validate_description,
    validate_key,
    validate_type,
)
from vault_mem.model.trailers import caller_chosen_text

if TYPE_CHECKING:
    from vault_mem.model.secret_checks import SecretFinding
    from vault_mem.model.secret_values import shannon_entropy
    from vault_mem.model.secrets import find_secrets

# The secret gate's own modules (vault_mem.model.secret_*: its rules, ~20 ms of CPU to import)
# are imported by the first check that scans a text, not with this module: every command and
# git hook that opens a vault imports this module, and most of them scan nothing (a read or a
# post-checkout hook with no file changed). index/scan.py's fingerprint of the rules reads their
# files without importing them.
_LAZY = {"SecretFinding": "vault_mem.model.secret_checks", "find_secrets": "vault_mem.model.secrets",
         "shannon_entropy": "vault_mem.model.secret_values"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["MAX_DESCRIPTION_CHARS", "QUARANTINE_MARK", "SecretFinding", "WritePolicy",
           "check_description_policy", "check_text", "check_write", "describe_secrets", "file_secrets",
           "find_secrets", "fix_recipe", "lint_write", "mask_secrets", "purge_recipe", "quarantine_reason",
           "shannon_entropy"]

MAX_DESCRIPTION_CHARS = 200

#: how many recently vetted files a WritePolicy remembers (a write vets a handful)
_VETTED_KEPT = 16

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
    out: list[tuple[str, str, int | None]] = []
    for label, kind, line, _span, _value in _findings(key=key, description=description, body=body,
                                                      meta=meta, comments=comments):
        if (label, kind, line) not in out:
            out.append((label, kind, line))
    return out


def _findings(*, key: str, description: str, body: str, meta: Mapping[str, Any],
              comments: str = "") -> Iterator[tuple[str, str, int | None, str | None, object]]:
    """The write gate's findings, each with its evidence: (field, kind, line, the matched text or
    None, the field's value). A finding with a matched text is one
    :func:`~vault_mem.model.secrets.find_secrets` spans; one without (a value a label names, a
    seed phrase split across fields) is judged on the fields' whole value
    (:func:`published_already` matches each by its evidence)."""
    from vault_mem.model.secrets import find_secrets, slug_secrets  # lazy: see _LAZY

    fields: list[tuple[str, str]] = [
        ("key", key or ""),
        ("description", description or ""),
        ("body", body or ""),
    ]
    fields.extend(_field_texts(meta or {}, description or ""))
    if comments:
        fields.append(("frontmatter comment", comments))
    keyed = False
    for label, text in fields:
        for finding in find_secrets(text):
            keyed = keyed or label == "key"
            yield (label, finding.kind, _line_of(text, finding.start) if label == "body" else None,
                   text[finding.start:finding.end], text)
    if key and not keyed:
        # a token in the key's slug, after a `-` or `/` its own rule takes for part of a name
        for f in slug_secrets(key):
            yield "key", f.kind, None, None, key
    yield from _split_credentials(key, description, body, meta)


_KIND_FIELDS = frozenset({"type", "source"})


def _split_credentials(key: str, description: str, body: str,
                       meta: Mapping[str, Any] | None) -> Iterator[tuple[str, str, int | None, None, object]]:
    """A credential split across fields: the key, description or tags name it ("Staging DB
    password", tag ``unseal-key``) and the body, or another field or tag, holds the value alone;
    or one credential runs from the end of the description into the body (half a seed phrase
    in each)."""
    from vault_mem.model.secret_codes import labelled_codes  # lazy: see _LAZY
    from vault_mem.model.secret_labels import key_named_value, labelled_value, says_not_secret
    from vault_mem.model.secrets import scattered_phrase, seam_secrets

    meta = meta or {}
    strings = [(name, v) for name, value in meta.items() if name != "description"
               for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str)]
    tags = " ".join(v for name, v in strings if isinstance(meta[name], (list, tuple)))
    label = f"{(key or '').replace('-', ' ')} {description or ''} {tags}"
    # a tag is a word by nature, so a tag counts as the value only when it has digits and length
    # the schema's own fields (`type: procedure`, `source: user`) hold a kind, never the credential
    # a label names: "password policy" over `type: reference` is a memory about passwords
    values = [("body", body or "")] + [(f"frontmatter field '{name}'", v) for name, v in strings
                                       if name not in _KIND_FIELDS
                                       and (not isinstance(meta[name], (list, tuple))
                                            or (len(v) >= 12 and any(c.isdigit() for c in v)))]
    # each part read alone: "mongo url, no password" then the tag "reference" is no "password reference"
    unsaid = any(says_not_secret(part) for part in ((key or "").replace("-", " "), description or "", tags))
    for where, value in values:
        kind = None if unsaid else labelled_value(label, value) or labelled_codes(label, value)
        if kind:
            at = len(value) - len(value.lstrip())
            yield where, kind, _line_of(value, at) if where == "body" else None, None, value
    if key and description and not unsaid:
        kind = key_named_value(key, description)  # `deploy-hook-<token>` under "deploy hook token"
        if kind:
            yield "key", kind, None, None, key
    if description and body:
        for f in seam_secrets(description, body):
            yield "description and body", f.kind, None, None, (description, body)
    if scattered_phrase([description or "", body or ""] + [v for _, v in strings]):
        yield ("fields together", "seed phrase split across fields", None, None,
               (description, body, tuple(strings)))


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


# --- files on disk: the quarantine ----------------------------------------------------------
#
# A file a person saved (or a peer's commit brought) that holds a credential is *quarantined*:
# the sidecar keeps a problem row for it and none of its text (no INDEX.md line, no recall hit,
# no FTS row, no vector, nothing sent to an embedder), ``get`` refuses it, and no vault-mem commit
# takes it, until the value is removed. The rule is the write gate's own (:func:`secret_findings`),
# so a file is quarantined exactly when a write of the same bytes would be refused.

#: how a sidecar problem row says that its file is quarantined (it holds a credential)
QUARANTINE_MARK = "quarantined: "

_FIELD_LABEL = lazy(r"frontmatter field '(.+)'$")


def file_secrets(rel: str, data: bytes, memory: Memory | None = None) -> list[tuple[str, str, int | None]]:
    """(field, kind, line in the file) for each suspected credential in the memory file ``rel``
    holding ``data`` (``memory``: its parsed form, when the caller has it). A file that parses is
    judged by the write gate's rule (:func:`secret_findings`), so what the gate would refuse is
    what is found here; one that does not parse is scanned as plain text (field ``file``). The
    line is counted from the top of the file (None where no line can be named: the key, which
    is the file name). Never any part of a value. ``memory`` must be what ``data`` parses to
    (:func:`~vault_mem.model.memory.memory_from_bytes`): the verdict is kept by the bytes
    (:data:`_VERDICTS`)."""
    verdict = _VERDICTS.get((rel, hashlib.sha256(data).digest()))
    if verdict is None:
        verdict = _keep_verdict(rel, data, tuple(_file_secrets(rel, data, memory)))
    return list(verdict)


def _keep_verdict(rel: str, data: bytes, verdict: tuple) -> tuple:
    """Keep ``verdict`` on the file ``rel`` holding ``data`` (:data:`_VERDICTS`, the oldest
    dropped past :data:`_VERDICTS_KEPT`); return it."""
    _VERDICTS[(rel, hashlib.sha256(data).digest())] = verdict
    while len(_VERDICTS) > _VERDICTS_KEPT:
        _VERDICTS.popitem(last=False)
    return verdict


#: :func:`file_secrets`'s verdicts by (path, SHA-256 of the bytes), the oldest dropped first: a
#: pure function of the path, the bytes and the rules, which are the code this process loaded
#: (a process never runs other rules: one that loads others, a newer vault-mem, starts with none
#: kept, and its sidecar reads every file again, index/scan.gate_fingerprint). A reconcile reads
#: the files a write just vetted, a rebuild or a second vault the same files again; the scan is
#: ~0.5 ms a file. Never stored: a verdict on disk could be planted or outlive its rules.
_VERDICTS: OrderedDict[tuple[str, bytes], tuple[tuple[str, str, int | None], ...]] = OrderedDict()
_VERDICTS_KEPT = 4096


def _file_secrets(rel: str, data: bytes, memory: Memory | None) -> list[tuple[str, str, int | None]]:
    from vault_mem.model.secrets import find_secrets  # lazy: see _LAZY

    text = data.decode("utf-8", "replace")
    if memory is None:
        try:
            memory = parse_memory(text, rel)
        except VaultMemError:
            memory = None
    if memory is None:
        return list(dict.fromkeys(("file", f.kind, _line_of(text, f.start)) for f in find_secrets(text)))
    found = secret_findings(key=memory.key, description=memory.description, body=memory.body,
                            meta=memory.meta, comments=memory.comments)
    if not found:
        return []
    body_at = text.rfind(memory.body) if memory.body else -1
    head = text[:body_at] if body_at >= 0 else text
    in_head = [(f.kind, _line_of(text, f.start)) for f in find_secrets(head)]
    out: list[tuple[str, str, int | None]] = []
    for label, kind, line in found:
        if label == "body":
            line = _line_of(text, body_at) + (line or 1) - 1 if body_at >= 0 else None
        elif label != "key":
            line = next((ln for k, ln in in_head if k == kind), None)
            name = "description" if label == "description" else (m.group(1) if (m := _FIELD_LABEL.match(label)) else None)
            if line is None and name:
                at = re.search(rf"^[ \t]*['\"]?{re.escape(name)}['\"]?[ \t]*:", head, re.MULTILINE)
                line = _line_of(text, at.start()) if at else None
        if (label, kind, line) not in out:
            out.append((label, kind, line))
    return out


def published_already(rel: str, data: bytes, public: bytes, public_rel: str | None = None) -> bool:
    """Whether every suspected credential of the memory file ``rel`` holding ``data`` is one that
    ``public`` (the remote's version of that file, at ``public_rel``: ``rel`` unless ``data`` is a
    conflict copy of it) holds already as a credential: each finding of the write gate's rule
    (:func:`file_secrets` on ``data`` as it is) matched by its own evidence. Only then is a local
    commit of ``data`` no publication of this machine's (a person's hand merge that keeps the
    peer's file); a peer holding *a* credential in a file never lets another value out (atk32: a
    made-up token in the peer's copy let the sync publish the person's real one). A finding with
    a matched text counts only when the same text is a credential the remote's version holds
    (:func:`~vault_mem.model.secrets.find_secrets` of the file or of one of its fields: the word
    in a peer's prose is no published password); one without (a value the description names, a
    seed phrase split across fields) only when the remote's version has the same finding, of the
    same field and kind, over the identical field value. The gate is never run again on altered
    text: blanking the peer's token out of "no password <token>" read as "no password" and let
    the body's own password through (mendatk2). A credential in the file's name counts as
    published where the remote's file name holds one of its kind."""
    if data == public:
        return True
    from vault_mem.model.secrets import find_secrets  # lazy: see _LAZY

    theirs = public.decode("utf-8", "replace")
    values = {theirs[f.start:f.end] for f in find_secrets(theirs)}
    theirs_found = _evidence(public_rel or rel, theirs)
    values.update(span for _, _, span, _ in theirs_found if span is not None)
    named = {(label, kind, value) for label, kind, span, value in theirs_found if span is None}
    keys = {kind for label, kind, _, _ in theirs_found if label == "key"}
    for label, kind, span, value in _evidence(rel, data.decode("utf-8", "replace")):
        if label == "key":
            if kind not in keys:
                return False
        elif span is not None:
            if span not in values:
                return False
        elif (label, kind, value) not in named:
            return False
    return True


def _evidence(rel: str, text: str) -> list[tuple[str, str, str | None, object]]:
    """(field, kind, matched text or None, field value) for each finding :func:`file_secrets`
    makes in the memory file ``rel`` holding ``text``: the same rule, with what each rests on."""
    from vault_mem.model.secrets import find_secrets  # lazy: see _LAZY

    try:
        memory = parse_memory(text, rel)
    except VaultMemError:
        return [("file", f.kind, text[f.start:f.end], text) for f in find_secrets(text)]
    return [(label, kind, span, value) for label, kind, _, span, value in
            _findings(key=memory.key, description=memory.description, body=memory.body,
                      meta=memory.meta, comments=memory.comments)]


def describe_secrets(found: list[tuple[str, str, int | None]]) -> str:
    """``what looks like an AWS access key (body, line 7); ...`` for :func:`file_secrets`'s
    findings: the kinds and where they are, never a value."""
    parts: list[str] = []
    for label, kind, line in found:
        article = "an" if kind[0] in "AEIOaeio" else "a"
        where = label if label != "file" else "the file"
        where = f"{where}, line {line}" if line is not None else where
        part = f"what looks like {article} {kind} ({where})"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts)


def quarantine_reason(found: list[tuple[str, str, int | None]]) -> str:
    """The sidecar's problem text for a file holding the credentials ``found`` (see
    :func:`file_secrets`): starts with :data:`QUARANTINE_MARK`, names kinds and lines, no value."""
    return (f"{QUARANTINE_MARK}it holds {describe_secrets(found)}; it is kept out of INDEX.md, recall and "
            "commits until the value is removed (`vault-mem doctor` says how)")


def purge_recipe(top: str, *, message: bool = False) -> str:
    """How to get a credential out of git history: rotate, rewrite, force-push, re-clone. ``top``:
    the file's path in the repository; ``message``: the value sits in commit messages instead."""
    if message:
        rewrite = ("rewrite the commit messages: `git filter-repo --replace-message FILE` where FILE "
                   "holds the value followed by '==>REMOVED'")
    else:
        quoted = shlex.quote(top)
        rewrite = (f"rewrite history without it: `git filter-repo --path {quoted} --invert-paths` "
                   "(drops the file from every commit; commit a clean copy again afterwards) or "
                   "`git filter-repo --replace-text FILE` (FILE holds the value followed by "
                   "'==>REMOVED'; keeps the file)")
    return ("Treat the credential as leaked: revoke or rotate it first, because every clone, fork "
            f"and backup keeps it. Then {rewrite}; force-push every branch and tag, and have every "
            "other clone re-clone (old clones reintroduce it on the next push).")


def fix_recipe(rel: str, *, top: str | None = None, in_history: bool = False) -> str:
    """What to do about the quarantined file ``rel``: remove the value, keep it in a secret
    manager, save; with ``in_history`` (a commit holds it: a peer's, or one made past the
    pre-commit hook) rotate it first and purge history (:func:`purge_recipe` for ``top``)."""
    fix = (f"remove the value from {rel}, store it in a secret manager (write where it lives "
           "instead, e.g. 'API key in 1Password item X'), then save the file: it is listed, "
           "searchable and committed again by itself")
    if not in_history:
        return (f"{fix[0].upper()}{fix[1:]}. No vault-mem commit holds it; if you committed an earlier "
                "version yourself, `vault-mem scan --history` finds it.")
    return (f"{top or rel} is committed, so the value is in git history. {purge_recipe(top or rel)} "
            f"Then {fix}.")


def mask_secrets(text: str) -> str:
    """``text`` with each suspected credential replaced by ``[<kind> removed]``: for naming an
    untrusted string (a key from a journal, a description from a peer's file) in a message."""
    from vault_mem.model.secrets import find_secrets  # lazy: see _LAZY

    out, at = [], 0
    for f in find_secrets(text):
        out.append(text[at:f.start])
        out.append(f"[{f.kind} removed]")
        at = f.end
    out.append(text[at:])
    return "".join(out)


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

_TURN = lazy(
    r"^[ \t>*_]*(?:user|assistant|human|ai|system|agent|claude|chatgpt|gpt|model|bot|me|you)[*_]*[ \t]*:",
    re.IGNORECASE | re.MULTILINE,
)
_QUOTED = lazy(r"^[ \t]*>", re.MULTILINE)
_PROMPT = lazy(
    r"^[ \t]*(?:\$|[\w.-]+@[\w.-]+:[^\n$#]{0,80}[$#]|>>>|PS [A-Z]:\\[^\n>]{0,80}>|C:\\[^\n>]{0,80}>)[ \t]"
)
_TRACEBACK = lazy(
    r"Traceback \(most recent call last\)|^[ \t]+at [\w$.<>]+\([^)\n]*\)$|^Exception in thread |^panic: |"
    r"^goroutine \d+ \[", re.MULTILINE,
)
_LOG_LINE = lazy(
    r"^[ \t]*\[?(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?|\d{2}:\d{2}:\d{2}|"
    r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2})|"
    r"^[ \t]*\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE)\]?[ :]",
    re.MULTILINE,
)
_NARRATION = lazy(
    r"\b(?:the user (?:asked|wants|told|wanted|requested|said)(?: me)?|user asked me|"
    r"i (?:just|have just|then|was asked)\b|in this (?:session|conversation|chat)|"
    r"during (?:this|our|the) (?:session|conversation|chat)|earlier (?:today|in (?:this|the) "
    r"(?:session|conversation))|as (?:you|the user) (?:asked|requested)|let me |i(?:'ll| will) now|"
    r"i'm going to|you asked me)",
    re.IGNORECASE,
)
# Words that introduce a reason, in the description or the body ("Use Postgres — row locks";
# "Chose SQLite since it is one file"). "instead of" and "over" only name the alternative, so
# they do not count. A dash between words ("X — Y", "X -- Y", "X: because") also counts.
_REASON = lazy(
    r"\S\s+(?:—|–|--)\s+\S|\b(?:because|since|so|so that|to avoid|to keep|to prevent|in order to|reasons?|why|due to|"
    r"given that|as a result|rationale|trade-?offs?|otherwise|motivat\w*|prevents?|avoids?|caused?|"
    r"needed for|required by|lets|allows?|enables?|means|benefits?|pros|cons|better|worse|cheaper|"
    r"faster|slower|simpler|safer|easier|harder)\b",
    re.IGNORECASE,
)
_FENCE = lazy(r"^[ \t]*(?:```|~~~)", re.MULTILINE)


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
    if type == "decision" and not _REASON.search(f"{description}\n{text}"):
        warnings.append(
            "This decision does not say why; add the reason to the description or the body ('because...', "
            "'to avoid...') so a later reader can tell when it stops applying."
        )
    return warnings


# --- the write policy: every path into a memory file, INDEX.md or a commit calls this -------


def check_text(what: str, *values: Any) -> None:
    """Refuse text that cannot be stored as UTF-8 before it reaches SQLite, YAML or git: lone
    surrogates come from a JSON ``"\\ud800"`` escape or from command-line bytes that are not UTF-8."""
    for value in values:
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, str) and not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise InvalidMemoryError(
                        f"{what}: not valid text (an unpaired surrogate at position {exc.start}); "
                        "send UTF-8 text"
                    ) from None


@dataclass
class WritePolicy:
    """The checks every write makes, in one place: key, format, size, secrets and lint.

    - :meth:`check_request` vets what an agent asks to write (``remember``): valid key, type,
      description and text, the body within ``max_body_bytes``, the description policy and the
      secret gate; returns the lint warnings.
    - :meth:`file_bytes` renders a memory to the bytes of its file and proves they read back as
      the same memory (a body that starts with a ``---`` block would otherwise hide the memory).
    - :meth:`check_file` vets the bytes of any memory file that a write is about to put on disk
      or into a commit, whatever produced them (remember, import, undo, resolve, crash recovery,
      sync, a hand edit the daemon commits): a memory path, a file that parses, within the size
      limit, and no credential anywhere in it.
    - :meth:`check_message` keeps credentials out of commit messages.
    """

    max_body_bytes: int
    max_file_bytes: int
    _vetted: OrderedDict[tuple[str, bytes], None] = field(default_factory=OrderedDict, init=False,
                                                         repr=False, compare=False)

    def check_request(self, *, key: str, type: str, description: str, body: str,
                      tags: list[str] | None = None, extra: Mapping[str, Any] | None = None,
                      agent: str | None = None) -> list[str]:
        """Vet an agent's write before anything is read or written; returns lint warnings."""
        validate_key(key)
        validate_type(type)
        validate_description(description)
        if not isinstance(body, str):
            raise InvalidMemoryError("body must be text")
        if "\x00" in body:
            raise InvalidMemoryError("body contains a NUL byte; store text, not binary data")
        # a character is at least one UTF-8 byte: a body with more characters than the limit is
        # refused without encoding it (which would hold a second copy of a huge body in memory)
        size = len(body) if len(body) > self.max_body_bytes else \
            len(body.encode("utf-8", "surrogatepass"))  # lone surrogates: refused just below
        if size > self.max_body_bytes:
            raise SizeLimitError(
                f"body is {size} bytes or more, over the vault's limit of {self.max_body_bytes} "
                "([limits] max_body_bytes in vault.toml); store a summary and a pointer instead"
            )
        check_text("the description, body, tags or a field", description, body, tags,
                   *(extra or {}).values(), agent)
        # lint_write refuses a description over the policy's length first, then lists warnings
        warnings = lint_write(type=type, description=description, body=body)
        meta = dict(extra or {})
        if tags:
            meta["tags"] = tags
        check_write(key=key, description=description, body=body, meta=meta)
        return warnings

    def file_bytes(self, memory: Memory, *, old: bytes | None = None) -> bytes:
        """The file bytes of ``memory``, refused unless they read back as the same memory. With
        ``old`` (the file's bytes now), an in-place rewrite of it: only the fields the write
        changes are re-emitted (see :func:`~vault_mem.model.memory.rewrite_memory`); the whole
        result, a person's comments that survive included, then passes :meth:`check_file`."""
        # YAML here, not at the module's top: rendering a file imports it anyway, and every
        # command that opens a vault imports this module (a read or a git hook that parses no
        # file would pay ~20 ms of CPU for the import, most of it PyYAML compiling its reader's
        # pattern)
        import yaml

        try:
            text = render_memory(memory) if old is None else rewrite_memory(old.decode("utf-8"), memory)
            back = parse_memory(text, memory.path)
        except (VaultMemError, yaml.YAMLError, ValueError, TypeError) as exc:
            reason = str(exc).removeprefix(f"{memory.path}: ")
            raise InvalidMemoryError(
                f"this write would make a file that does not read back as written ({reason}); if the "
                "body starts with a '---' line, start it with other text (a heading, say)"
            ) from None
        if not same_content(back, memory):
            raise InvalidMemoryError(
                "this write would make a file that does not read back as written (a field value "
                "changes in the round trip); pass plain text, numbers, dates or lists of text"
            )
        data = text.encode("utf-8")
        if len(data) > self.max_file_bytes:
            raise SizeLimitError(
                f"this write would make a file of {len(data)} bytes, over the vault's limit of "
                f"{self.max_file_bytes} ([limits] max_body_bytes in vault.toml); store a summary and "
                "a pointer instead"
            )
        self._vet(memory.path, back)
        self._remember_vetted(memory.path, data)
        return data

    def check_file(self, rel: str, data: bytes) -> None:
        """Vet the bytes of the memory file ``rel`` before they reach the disk or a commit.
        Raises :class:`MalformedFileError` for a file that does not parse (or is over the
        limit), :class:`InvalidMemoryError` for a body over the limit and :class:`SecretError`
        for a suspected credential. Bytes that :meth:`file_bytes` just made (and vetted) are
        not parsed again."""
        if (rel, data) in self._vetted:
            return
        self._vet(rel, memory_from_bytes(data, rel, max_bytes=self.max_file_bytes))
        self._remember_vetted(rel, data)

    def file_secrets(self, rel: str, data: bytes, memory: Memory | None = None) -> list[tuple[str, str, int | None]]:
        """(field, kind, line) of each suspected credential in the memory file ``rel`` holding
        ``data``: :func:`file_secrets`, the rule :meth:`check_file` refuses by."""
        return file_secrets(rel, data, memory)

    def quarantine_reason(self, rel: str, data: bytes, memory: Memory | None = None) -> str | None:
        """Why the file ``rel`` holding ``data`` is quarantined (see :func:`quarantine_reason`),
        or None when it holds no credential: what the sidecar records for a file it must not
        index. Judged by the same rule as :meth:`check_file`."""
        found = file_secrets(rel, data, memory)
        return quarantine_reason(found) if found else None

    def check_readable(self, rel: str, data: bytes, memory: Memory | None = None) -> None:
        """Refuse to show the memory file ``rel`` while it holds a credential
        (:class:`QuarantinedFileError`: the file, the kinds and lines, the fix; never a value)."""
        found = file_secrets(rel, data, memory)
        if found:
            raise QuarantinedFileError(
                f"{rel} is quarantined: it holds {describe_secrets(found)}, so vault-mem does not show, list "
                f"or commit it. Remove the value from {rel}, store it in a secret manager, then save "
                "the file; `vault-mem doctor` says more"
            )

    def _vet(self, rel: str, memory: Memory) -> None:
        body_size = len(memory.body.encode("utf-8"))
        if body_size > self.max_body_bytes:
            raise SizeLimitError(
                f"{rel}: the body is {body_size} bytes, over the vault's limit of {self.max_body_bytes} "
                "([limits] max_body_bytes in vault.toml); store a summary and a pointer instead"
            )
        check_description_policy(memory.description)
        check_write(key=memory.key, description=memory.description, body=memory.body, meta=memory.meta,
                    comments=memory.comments)

    def _remember_vetted(self, rel: str, data: bytes) -> None:
        # a write vets its bytes when it makes them and again in the transaction: keep the
        # last few, so the same bytes are parsed once (bytes are immutable: a hit is exact)
        self._vetted[(rel, data)] = None
        while len(self._vetted) > _VETTED_KEPT:
            self._vetted.popitem(last=False)
        # the gate passed these bytes: the reconcile that reads them back finds nothing either
        # (file_secrets judges a parsed file by the same secret_findings)
        _keep_verdict(rel, data, ())

    def check_message(self, message: str, *, identity: tuple[str, str] | None = None) -> None:
        """Refuse a commit message holding a suspected credential: its subject and body, and the
        values of trailers a caller can choose (``Agent:``); vault-mem's own structural trailers
        (keys, actions, types, commit ids) are not scanned, since a commit id or a key looks
        like a random token. ``identity``: the commit's (name, email), which a caller chooses
        too (``--agent``, ``VAULT_MEM_AGENT``, vault.toml, a journal) and which git keeps as
        plainly as the message."""
        from vault_mem.model.secrets import find_secrets  # lazy: see _LAZY

        kinds = sorted({f.kind for f in find_secrets(caller_chosen_text(message))})
        if kinds:
            raise SecretError(f"refused: the commit message holds what looks like {', '.join(kinds)}. "
                              f"{_WHAT_TO_DO}")
        if identity is not None:
            kinds = sorted({f.kind for f in find_secrets("\n".join(identity))})
            if kinds:
                raise SecretError(f"refused: the commit author (name or email) holds what looks like "
                                  f"{', '.join(kinds)}. Nothing was written. Use a plain agent name "
                                  "(--agent, VAULT_MEM_AGENT, [agent] in vault.toml)")
