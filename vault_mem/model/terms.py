"""The words of the keyword side: query words, the FTS5 query, the text indexed for a memory.

Pure text functions (no database): which words of a query count (stopwords dropped), how they
become an FTS5 query that no input can break, what goes into the FTS ``extra`` column and what
the embedder reads for a memory, and a light stemmer for telling which query words a memory
holds. :mod:`vault_mem.index.search` runs the searches; :mod:`vault_mem.index.dupes` reuses these too.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Collection, Sequence

# A small English stopword list: question words and function words carry no topic (nor do the
# courtesies of a request, :data:`COURTESIES`, dropped from query words beside these).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can cannot could couldn't did didn't do does doesn't doing don't
    down during each few for from further had hadn't has hasn't have haven't having he he'd he'll
    he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is
    isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or
    other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't
    so some such than that that's the their theirs them themselves then there there's these they
    they'd they'll they're they've this those through to too under until up very was wasn't we we'd
    we'll we're we've were weren't what what's when when's where where's which while who who's whom
    why why's with won't would wouldn't you you'd you'll you're you've your yours yourself
    yourselves s t d ll m re ve also get got just like will""".split()  # noqa: SIM905
)
MAX_QUERY_TERMS = 48
# How a question opens (English): what the answer check of index/search.py needs to know, since
# it asks whether a memory holds what a *question* asks; an instruction ("open the config file in
# my editor") asks for nothing a memory must hold.
QUESTION_OPENERS = frozenset(
    """what what's which who who's whom whose when when's where where's why why's how how's is isn't
    are aren't was wasn't were weren't do does doesn't did didn't don't can can't could couldn't
    should shouldn't would wouldn't will won't have has had am any tell""".split()  # noqa: SIM905
)
MAX_QUERY_CHARS = 4000
#: the courtesies of a request: no part of what it asks, so no query word and not embedded
#: (:func:`without_courtesies`)
COURTESIES = frozenset(["please", "pls", "kindly"])
_COURTESY = re.compile(r"[,\s]*(?<![\w-])(?:" + "|".join(sorted(COURTESIES)) + r")(?![\w-])[,.!]?", re.IGNORECASE)
#: most alternative phrasings one recall takes beside its query (``queries``): each costs one
#: query embedding and both searches
MAX_QUERIES = 5
WORD = re.compile(r"\w+", re.UNICODE)


def plausible_words(prefixes: Collection[str]) -> re.Pattern[str]:
    """A pattern finding the words (:data:`WORD` runs) of a lower-cased text that may stem to
    one of some stems: those whose first three characters are one of ``prefixes`` (a prefix of
    fewer than three characters is a whole word). The same words as splitting every word out
    with :data:`WORD` and testing each, for half the CPU (recall's word share of ~100
    candidates, :func:`vault_mem.index.search.keyword_coverage`)."""
    alternatives = [re.escape(p) + (r"\w*" if len(p) >= 3 else r"(?!\w)") for p in sorted(prefixes)]
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + ")", re.UNICODE)


def query_terms(query: str) -> list[str]:
    """Lower-cased distinct words of ``query`` minus stopwords (all words if only stopwords)."""
    text = (query or "")[:MAX_QUERY_CHARS].replace("\x00", " ").lower()
    words: list[str] = []
    seen: set[str] = set()
    for w in WORD.findall(text):
        w = w.strip("_")
        if w and w not in seen:
            seen.add(w)
            words.append(w)
    content = [w for w in words if w not in STOPWORDS and w not in COURTESIES]
    return (content or words)[:MAX_QUERY_TERMS]


def without_courtesies(text: str) -> str:
    """``text`` as the query's vector reads it: without the courtesies of a request ("open the
    config in my editor please" -> "open the config in my editor"; with MiniLM "please" drew
    the query's vector toward any polite request, 0.29 -> 0.27 against the editor memory, under
    a new vault's strong bar). A text of courtesies alone is kept as it is."""
    if not _COURTESY.search(text):
        return text  # unchanged, to the byte: what the vector reads moves only where a courtesy is
    stripped = " ".join(_COURTESY.sub(" ", text).split())
    return stripped or text


def fts_query(terms: Sequence[str], op: str = "OR") -> str | None:
    """``"w1" OR "w2" ...`` (or ``AND``): every word quoted, so FTS5 operators in the input are inert."""
    if op not in ("OR", "AND"):
        raise ValueError(f"op must be OR or AND, not {op!r}")
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t]
    return f" {op} ".join(quoted) if quoted else None


def date_words(value: str | None) -> str:
    """``2023-05-08`` -> ``2023-05-08 8 May 2023``: lets "in May 2023" match by keyword."""
    if not value:
        return ""
    try:
        d = dt.date.fromisoformat(value[:10])
    except ValueError:
        return value
    return f"{d.isoformat()} {d.day} {d.strftime('%B')} {d.year}"


def keyword_extra(key: str, tags: Sequence[str], date: str | None) -> str:
    """Text of the third FTS column: the key's words, the tags, and the date written out."""
    key_words = re.sub(r"[-_.]+", " ", key)
    return " ".join(x for x in (key_words, " ".join(tags), date_words(date)) if x)


def document_text(description: str, body: str, date: str | None) -> str:
    """What the embedder sees for a memory: description first (models truncate long input)."""
    body = body.strip()
    return f"{description}\n{body[:2000]}" if body else description


_SUFFIXES = ("ational", "ization", "fulness", "iveness", "ations", "ation", "ments", "ness", "ment", "ings",
             "ies", "ied", "ing", "ers", "est", "ed", "er", "ly", "es", "s")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude suffix stripper: close enough to FTS5's Porter stemmer to tell which query words
    a memory contains ("paintings" ~ "painted" ~ "paint"), and cheap."""
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            word = word[: -len(suf)]
            break
    return word[:-1] if len(word) > 4 and word[-1] == word[-2] else word


def is_question(text: str) -> bool:
    """Does ``text`` ask a question (it ends in "?", or its first word opens one: "what",
    "how", "is", "do", "tell me ...")? An instruction or a statement does not."""
    text = (text or "").strip()
    if text.endswith("?"):
        return True
    first = WORD.search(text[:200].lower().replace("’", "'"))
    if first is None:
        return False
    word = text[first.start():].lower().split(None, 1)[0].strip(",.:;!")
    return word in QUESTION_OPENERS or first.group(0) in QUESTION_OPENERS
