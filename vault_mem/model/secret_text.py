"""The forms of a text the secret rules read: normalised, re-joined and decoded, each mapped back.

A credential does not stop being one when it is disguised, so before the rules run a text is
brought to the form a person would read or a program would use:

- :func:`normalise`: NFKC (full-width ``：`` and ``ｇｈｐ`` become ``:`` and ``ghp``), format
  characters dropped (zero-width space and joiner, word joiner, BOM, soft hyphen, bidi marks) and
  Cyrillic and Greek letters that look like Latin ones folded to them.
- :func:`join_wrapped`: a token wrapped over lines (a JWT broken every 64 characters, a key split
  into ``"abc" +`` / ``"def"`` string pieces, a ``\\`` line continuation) joined back. Only breaks
  between token-like runs are joined, so prose keeps its lines.
- :func:`encoded_runs`: base64 and URL-encoded runs that decode to mostly printable text, for the
  caller to scan again (bounded in depth and size by the caller).

Each form is a :class:`View` that maps a span of its text back to the text it came from, so a
finding points at the original characters (a wrapped token's span covers its line breaks).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from urllib.parse import unquote

__all__ = ["View", "encoded_runs", "join_wrapped", "normalise"]


class View:
    """A text derived from another, with the map from its offsets to the other's.

    The map is a list of pieces: piece ``i`` starts at ``outs[i]`` in this text and came from
    ``origs[i]`` (``olens[i]`` characters) in the source; a verbatim piece maps character for
    character, any other maps as a whole. No pieces means the identity.
    """

    __slots__ = ("olens", "origs", "outs", "parent", "text", "verbatim")

    def __init__(self, text: str, parent: View | None = None) -> None:
        self.text = text
        self.parent = parent
        self.outs: list[int] = []
        self.origs: list[int] = []
        self.olens: list[int] = []
        self.verbatim: list[bool] = []

    def add(self, out: str, orig: int, olen: int, *, verbatim: bool, at: int) -> None:
        """Record that ``out`` (placed at offset ``at`` of this text) came from ``orig``."""
        if not out:
            return
        if (verbatim and self.verbatim and self.verbatim[-1] and self.origs[-1] + self.olens[-1] == orig
                and self.outs[-1] + self.olens[-1] == at):
            self.olens[-1] += olen  # extend the previous verbatim piece
            return
        self.outs.append(at)
        self.origs.append(orig)
        self.olens.append(olen)
        self.verbatim.append(verbatim)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """``text[start:end]`` as a span of the root text (the one with no parent)."""
        if self.outs:
            i = max(0, bisect.bisect_right(self.outs, start) - 1)
            start = self.origs[i] + (start - self.outs[i] if self.verbatim[i] else 0)
            j = max(0, bisect.bisect_right(self.outs, end - 1) - 1)
            end = self.origs[j] + (end - self.outs[j] if self.verbatim[j] else self.olens[j])
        return self.parent.span(start, end) if self.parent else (start, end)


# --- normalising ---------------------------------------------------------------------------

# Letters of other scripts drawn like Latin ones (Unicode's confusables for these scripts,
# the ones a font renders the same); folding them makes `АKIA` with a Cyrillic А an AWS key.
_HOMOGLYPHS = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ү": "y", "ɡ": "g", "ӏ": "l",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k",
    "υ": "u", "χ": "x", "τ": "t", "ϲ": "c", "ϳ": "j",
})
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


@lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    if unicodedata.category(ch) == "Cf":
        return ""  # zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls
    return unicodedata.normalize("NFKC", ch).translate(_HOMOGLYPHS)


def normalise(text: str) -> View:
    """``text`` as NFKC with format characters dropped and homoglyphs folded (see the docstring).

    ASCII text is returned as is (the common case costs one check).
    """
    if text.isascii():
        return View(text)
    out: list[str] = []
    view = View("")
    n = pos = 0
    for m in _NON_ASCII.finditer(text):
        if m.start() > pos:
            out.append(text[pos:m.start()])
            view.add(out[-1], pos, m.start() - pos, verbatim=True, at=n)
            n += m.start() - pos
        for i in range(m.start(), m.end()):
            folded = _fold(text[i])
            out.append(folded)
            view.add(folded, i, 1, verbatim=folded == text[i], at=n)
            n += len(folded)
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
        view.add(out[-1], pos, len(text) - pos, verbatim=True, at=n)
    view.text = "".join(out)
    return view


# --- re-joining wrapped tokens -------------------------------------------------------------

_TOKEN_CHAR = "A-Za-z0-9_+/=.-"
# A line break (with the indentation after it), a `\` continuation, or a string literal closed and
# reopened around it (`"abc" +\n "def"`, `'abc'\n'def'`, `"abc" + "def"`), between two token runs.
_JOIN = re.compile(
    rf"(?<=[{_TOKEN_CHAR}])(?:[\"'][ \t]{{0,8}}\+?[ \t]{{0,8}}\\?\r?\n[ \t]{{0,64}}\+?[ \t]{{0,8}}[\"']"
    rf"|[\"'][ \t]{{0,8}}\+[ \t]{{0,8}}[\"']|\\?\r?\n[ \t]{{0,64}})(?=[{_TOKEN_CHAR}]{{2}})"
)
_RUN_BEFORE = re.compile(rf"[{_TOKEN_CHAR}]{{1,64}}\Z")
_RUN_AFTER = re.compile(rf"[{_TOKEN_CHAR}]{{1,64}}")


def _token_like(run: str) -> bool:
    """A run that could be part of a key: digits, key punctuation, inner capitals or length."""
    if len(run) < 4:
        return False
    return (len(run) >= 20 or any(c.isdigit() or c in "_+/=-" for c in run)
            or any(c.isupper() for c in run[1:]))


def join_wrapped(text: str) -> View | None:
    """``text`` with wrapped tokens joined, mapped back to ``text``; None if nothing was joined."""
    if "\n" not in text and "+" not in text:
        return None
    joined: list[str] = []
    view = View("")
    n = pos = 0
    for m in _JOIN.finditer(text):
        before = _RUN_BEFORE.search(text, max(0, m.start() - 64), m.start())
        after = _RUN_AFTER.match(text, m.end())
        if not before or not after or len(before.group()) < 4:
            continue
        if not (_token_like(before.group()) or _token_like(after.group())):
            continue
        joined.append(text[pos:m.start()])
        view.add(joined[-1], pos, m.start() - pos, verbatim=True, at=n)
        n += m.start() - pos
        pos = m.end()
    if not joined:
        return None
    joined.append(text[pos:])
    view.add(joined[-1], pos, len(text) - pos, verbatim=True, at=n)
    view.text = "".join(joined)
    return view


# --- decoding ------------------------------------------------------------------------------

_B64_RUN = re.compile(r"[A-Za-z0-9+/](?<![A-Za-z0-9+/][A-Za-z0-9+/])[A-Za-z0-9+/]{15,}={0,2}")
_B64URL_RUN = re.compile(r"[A-Za-z0-9_-](?<![A-Za-z0-9_-][A-Za-z0-9_-])[A-Za-z0-9_-]{15,}")
_PCT_RUN = re.compile(r"[^\s\"'<>`](?<![^\s\"'<>`][^\s\"'<>`])[^\s\"'<>`]*%[0-9A-Fa-f]{2}[^\s\"'<>`]*")
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_MAX_RUN = 64 * 1024  # longer runs are data (an embedded image), not a wrapped credential


def _printable(decoded: str) -> bool:
    """Mostly printable text: what an encoded credential or config decodes to, unlike a hash."""
    return len(decoded) >= 8 and len(_UNPRINTABLE.findall(decoded)) <= len(decoded) // 20


def _b64decode(run: str, *, urlsafe: bool) -> str | None:
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded, validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if _printable(decoded) else None


def encoded_runs(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, decoded text, encoding) for each base64 or URL-encoded run of ``text`` that
    decodes to mostly printable text; the caller scans the decoded text again."""
    for m in _B64_RUN.finditer(text):
        if m.end() - m.start() <= _MAX_RUN:
            decoded = _b64decode(m.group(), urlsafe=False)
            if decoded is not None:
                yield m.start(), m.end(), decoded, "base64"
    for m in _B64URL_RUN.finditer(text):
        run = m.group()
        if ("-" in run or "_" in run) and len(run) <= _MAX_RUN:
            decoded = _b64decode(run, urlsafe=True)
            if decoded is not None:
                yield m.start(), m.end(), decoded, "base64"
    if "%" in text:
        for m in _PCT_RUN.finditer(text):
            if m.end() - m.start() <= _MAX_RUN:
                decoded = unquote(m.group(), errors="replace")
                if decoded != m.group() and _printable(decoded):
                    yield m.start(), m.end(), decoded, "URL"
