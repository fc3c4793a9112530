"""What a question asks for (its *focus*), read from English question grammar: the words a memory
must hold, literally or by meaning, to answer it.

The verdict's focus check (:func:`vault_mem.index.levels.focus_misses`) uses it: a strong hit
that lacks the focus is a near miss, shown as a ``candidate`` ("which Helix theme do I use?"
against "Uses Helix as the main editor": the editor is there, no theme is). Pure text and no
word lists about any subject: only the closed classes of English (wh-words, auxiliaries,
determiners, pronouns, prepositions) and the few nouns that name nothing themselves ("the *name*
of the Slack channel" asks for the channel).

The focus is a noun phrase's head and the names that qualify it (a capital or a digit: "*Helix*
theme", "*p95* latency"); other modifiers are left out, since a memory may say them otherwise
("usual morning drink" against "a flat white in the morning"). Read (focus in brackets):

- "which [Helix theme] do I use?", "which [Redis version] runs in production?": the noun phrase
  after "which"/"what"; one that no auxiliary ends runs into the question's verb, left out;
- "what is Jonas's phone [number]?", "what is the name of the [Slack channel]?": after a
  copula, the noun phrase past the last possessive; a head that names nothing ("name", "kind",
  "called") hands over to its "of" phrase, or is dropped;
- "how many [CI runners] ...?": the counted noun;
- "how do I deploy the [dashboard]?", "who designed the mobile [app]?": the verb's object (a
  verb is said in too many ways to be required: "deploy", "ship", "release", "push").

Anything else has no focus and the other checks decide: "what did Caroline research?" (the verb's
object is the answer), "when ...?" (every memory carries its own date), "why", "where", yes/no
questions and instructions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Self

from vault_mem.model.terms import STOPWORDS

_COPULAS = frozenset({"is", "are", "was", "were", "'s", "am", "be"})
_AUXILIARIES = _COPULAS | frozenset(
    """do does did has have had can could should would will shall may might must isn't aren't wasn't weren't
    don't doesn't didn't hasn't haven't can't couldn't shouldn't won't""".split())  # noqa: SIM905
_DETERMINERS = frozenset(
    "the a an my our your his her their its this that these those some any each every".split())  # noqa: SIM905
_SUBJECTS = frozenset({"i", "we", "you", "one", "they", "he", "she"})  # "how do I ...": a procedure
#: nouns that name nothing themselves: "the name of X", "what kind of X" ask about X, and so do
#: "what is X called", "the X name" (any name answers)
_EMPTY_HEADS = frozenset("name names kind kinds type types sort sorts one ones called named".split())  # noqa: SIM905
#: prepositions the stopword list lacks: they end a noun phrase too ("the intention *behind* ...")
_PREPOSITIONS = frozenset(
    """behind beside besides beyond across along among amongst around toward towards within without inside
    outside near via per despite upon onto unlike like since throughout according""".split())  # noqa: SIM905
_MANY = frozenset({"many", "much"})
_WH = frozenset({"what", "which", "who", "whom", "when", "how"})
_LEAD_IN = 4  # a wh-word this far in still opens the question ("so, tell me: which ...")
_TOKEN = re.compile(r"'s\b|\w+(?:-\w+)*")


@dataclass(frozen=True)
class Focus:
    """What a question asks for: the ``words`` a memory must hold, literally or by meaning (the
    head noun of the phrase asked for, and the names that qualify it)."""

    words: tuple[str, ...]


class Token(str):
    """A lower-cased word of a question that knows whether it was written as a name (a capital
    letter not opening the question, or a digit: "Helix", "GraphQL", "p95")."""

    name: bool

    def __new__(cls, word: str, name: bool = False) -> Self:
        tok = super().__new__(cls, word.lower())
        tok.name = name
        return tok


def tokens(question: str) -> list[Token]:
    """The words of ``question``, lower-cased, a possessive "'s" a token of its own."""
    text = re.sub(r"(\w)'s\b", r"\1 's", (question or "")[:500].replace("\u2019", "'"))
    found = _TOKEN.findall(text)
    return [Token(w, n > 0 and any(c.isupper() or c.isdigit() for c in w)) for n, w in enumerate(found)]


def _required(phrase: list[Token]) -> Focus | None:
    """The focus of the noun phrase ``phrase``: its head (the last word, a hyphenated one in
    parts: "kilowatt-hours") and the names that qualify it ("*Helix* theme"); other modifiers
    are left out, since a memory may say them otherwise ("usual morning drink": "flat white in
    the morning")."""
    if not phrase:
        return None
    kept = [w for w in phrase[:-1] if w.name] + [phrase[-1]]
    words = [p for w in kept for p in w.split("-") if p and p not in STOPWORDS and not p.isdigit()]
    return Focus(tuple(dict.fromkeys(words))) if words else None


def _noun_phrase(toks: list[Token], start: int) -> tuple[list[Token], int]:
    """The noun phrase at ``start`` (leading determiners skipped): its words up to the first
    stopword or preposition, or a name after a common word (a clause: "the setback *Tim*
    faced"), and the index after it."""
    i = start
    while i < len(toks) and toks[i] in _DETERMINERS:
        i += 1
    j = i
    while j < len(toks) and toks[j] not in STOPWORDS and toks[j] not in _PREPOSITIONS and toks[j] != "'s" \
            and not (j > i and toks[j].name and not toks[j - 1].name):
        j += 1
    return toks[i:j], j


def _after_possessives(toks: list[Token], start: int) -> tuple[list[Token], int]:
    """The noun phrase at ``start``; past a possessive ("Jonas's phone number", "the billing
    service's latency"), the one after it (the thing owned is what is asked)."""
    phrase, end = _noun_phrase(toks, start)
    while end < len(toks) and toks[end] == "'s":
        phrase, end = _noun_phrase(toks, end + 1)
    return phrase, end


def _of_phrase(toks: list[Token], phrase: list[Token], end: int) -> list[Token]:
    """``phrase``, or its "of" phrase when its head names nothing ("the name of the channel"),
    or without that head ("the bucket name", "what is the vet called")."""
    if phrase and phrase[-1] in _EMPTY_HEADS:
        if end < len(toks) and toks[end] == "of":
            return _after_possessives(toks, end + 1)[0]
        return phrase[:-1]
    return phrase


def _inflected(word: str) -> bool:
    """Looks like a verb's -s or -ed form ("runs", "hosts", "fired"; not "Redis", "bus",
    "class"): where a noun phrase that no auxiliary ends gives way to the question's verb."""
    return len(word) > 3 and (word.endswith("ed") or word.endswith("s") and not word.endswith(("ss", "is", "us")))


def _before_verb(phrase: list[Token], *, fallback: bool) -> list[Token]:
    """``phrase`` up to the verb that a noun phrase no auxiliary ends runs into: its first -s or
    -ed word after the first word, else (``fallback``) its last word."""
    cut = next((n for n, w in enumerate(phrase) if n and _inflected(w)), len(phrase) - 1 if fallback else len(phrase))
    return phrase[:max(cut, 1)]


def focus_of(question: str) -> Focus | None:
    """The :class:`Focus` of ``question``, or None when its grammar names none (see the module)."""
    toks = tokens(question)
    at = next((i for i, t in enumerate(toks[:_LEAD_IN]) if t in _WH), None)
    if at is None or at + 1 >= len(toks):
        return None
    wh, nxt, rest = toks[at], toks[at + 1], at + 1
    if wh == "when":
        return None
    if wh == "how":
        if nxt in _MANY:  # "how many CI runners ...?"
            return _required(_noun_phrase(toks, rest + 1)[0])
        if nxt in _AUXILIARIES and toks[rest + 1:rest + 2] and toks[rest + 1] in _SUBJECTS:
            # "how do I deploy the dashboard?": the verb's object (verbs are said in too many ways)
            return _required(_noun_phrase(toks, _skip_particles(toks, rest + 3))[0])
        return None
    if nxt in _COPULAS:  # what / which / who is ...
        lead_end = _noun_phrase(toks, rest + 1)[1]
        if toks[rest + 1:rest + 2] and toks[rest + 1] not in _DETERMINERS and toks[lead_end:lead_end + 1] != ["'s"]:
            return None  # "what is John doing?", "what is displayed on ...?": no noun phrase asked for
        phrase, end = _after_possessives(toks, rest + 1)
        if end < len(toks) and toks[end] not in _AUXILIARIES:
            phrase = _before_verb(phrase, fallback=False)  # "what was the setback Tim faced in ...?"
        return _required(_of_phrase(toks, phrase, end))
    if nxt in _AUXILIARIES:  # "what did Caroline research?": the verb's object is the answer
        return None
    if wh in ("who", "whom"):  # "who designed the mobile app?": the verb's object
        return _required(_noun_phrase(toks, rest + 1)[0])
    phrase, end = _noun_phrase(toks, rest)  # which / what + noun phrase
    if end >= len(toks) or toks[end] == "'s" or toks[end] not in _AUXILIARIES and toks[end] != "of":
        # no auxiliary ends it: the question's verb is inside ("which Redis version runs in
        # production?", "which AWS region hosts prod?"); with one word, it is the verb itself
        if phrase and _inflected(phrase[0]):
            return None  # "what powers product search?": the verb comes first, no noun phrase
        phrase = _before_verb(phrase, fallback=True) if len(phrase) > 1 else []
    return _required(_of_phrase(toks, phrase, end))


def _skip_particles(toks: list[Token], i: int) -> int:
    """Past a phrasal verb's particle ("back *up* the cluster")."""
    return i + 1 if i < len(toks) and toks[i] in ("up", "out", "off", "down", "over") else i
