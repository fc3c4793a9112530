"""The verdict of a recall (DESIGN.md §4): its level names and every sentence that tells the agent
what a result means. The one home of that wording: the CLI, the MCP server, the tool schemas, the
hooks and the session-start policy all take it from here, so none of them can drift into telling
the agent to deny what is shown.

A wrong "nothing is stored" costs far more than a near miss shown as one (the agent says "I don't
know", the person stops trusting the memory), and the agent, a language model, judges far better
than any cosine whether one sentence answers a question. So:

- each hit is :data:`STRONG` (close enough to put in front of the agent unasked: the prompt hook
  injects only these) or :data:`CANDIDATE` (one of the closest memories; it may not answer);
- the result is :data:`NONE` ("nothing related is stored") only when no memory clears the
  relevance floor, which answerable questions essentially never fall below;
- a downgraded search never says :data:`NONE` in a vault holding memories: with no hits its
  verdict is :data:`INCOMPLETE`, and every such result says why it may be incomplete. Downgraded:
  keyword-only (no model, an embedder down), memories the search by meaning could not see
  yet (no vector made: a first index after a clone or an import still under way), or an index
  not yet checked against the files (a long-lived reader's start-up check still running: a
  fresh clone's first recall searched an index that held none of its memories).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

#: hit levels
STRONG = "strong"
CANDIDATE = "candidate"
#: result verdicts: at least one strong hit; hits, none strong; nothing related is stored;
#: no hits from a keyword-only search (nothing is known either way)
NONE = "none"
INCOMPLETE = "incomplete"
VERDICTS = (STRONG, CANDIDATE, NONE, INCOMPLETE)

#: what a result with candidates only means, and what the agent does with it
CANDIDATES_ONLY = ("these are the closest memories and may not answer; answer from one that does, "
                   "otherwise say it is not stored")
#: what a ``none`` result means
NOTHING_RELATED = "nothing related is stored"
#: what a keyword-only result with no hits means
NOTHING_BY_KEYWORDS = ("no memory shares a word with the query, and search by meaning was not available, "
                       "so something related may still be stored: ask again in a moment or with other words")
#: what a result with no hits means when some memories have no vector yet (searched by keywords only)
NOT_ALL_BY_MEANING = ("nothing found cleared the relevance floor, but some memories are not yet searchable by "
                      "meaning, so something related may still be stored: ask again in a moment or with other words")
#: what a result with no hits means when the index was not yet checked against the files
NOT_CHECKED_YET = ("nothing found in the index as it is, but the files are still being checked against it (the "
                   "server just started), so something related may still be stored: ask again in a moment")
#: strong hits: what they are (and that they are still to be read, not trusted blindly)
STRONG_HITS = "the strong hits are close to the query; check that one answers it before relying on it"


def verdict_of(matches: Iterable[str], *, keyword_only: bool, stored: bool = True, unchecked: bool = False) -> str:
    """The result's verdict from its hits' levels, whether the search was downgraded
    (``keyword_only``: for every memory, or for those with no vector yet), and whether the vault
    holds any memory at all (``stored``: an empty vault is ``none`` anyway). ``unchecked``: the
    index searched was not yet checked against the files, so whether any memory is stored is
    not known from it either."""
    levels = list(matches)
    if STRONG in levels:
        return STRONG
    if levels:
        return CANDIDATE
    return INCOMPLETE if (keyword_only and stored) or unchecked else NONE


def keyword_only_note(reason: str | None) -> str:
    """What every keyword-only result says: its results may be incomplete, and why."""
    return ("search by meaning was not available" + (f" ({reason})" if reason else "")
            + ": these are keyword matches only and may be incomplete")


def guidance(verdict: str, *, keyword_only: bool = False, reason: str | None = None, unembedded: int = 0,
             unchecked: bool = False) -> str:
    """The sentence an agent reads with a result of ``verdict`` (the CLI, the tools, MCP);
    ``unembedded``: how many memories the search by meaning could not see yet; ``unchecked``:
    the index was not yet checked against the files."""
    text = {STRONG: STRONG_HITS, CANDIDATE: CANDIDATES_ONLY, NONE: NOTHING_RELATED,
            INCOMPLETE: NOTHING_BY_KEYWORDS}[verdict]
    if verdict == INCOMPLETE and unchecked:
        text = NOT_CHECKED_YET
    elif verdict == INCOMPLETE and not keyword_only and unembedded:
        text = NOT_ALL_BY_MEANING
    if keyword_only and verdict in (STRONG, CANDIDATE):
        text = f"{text}; {keyword_only_note(reason)}"
    elif keyword_only and verdict == INCOMPLETE and reason:
        text = f"{text} ({reason})"
    return text


#: the one instruction to say that something is not stored: tied to the ``none`` verdict
NONE_INSTRUCTION = f"only when the verdict is '{NONE}' ({NOTHING_RELATED}), say it is not stored; never guess"
#: phrases that tell an agent to deny or to hold back (today's wordings and earlier versions'):
#: no text shown with hits may hold one outside CANDIDATES_ONLY and NONE_INSTRUCTION
#: (tests/test_tools.py greps every adapter's text; ``vault-mem eval`` counts a result whose note
#: holds one as a denial): the one list of both, see :func:`deny_phrases`
DENY_PHRASES = ("nothing stored answers", "instead of guessing", "say so", "do not guess", "never guess",
                "not stored", "nothing related", "nothing relevant", "not an answer", "not answers", "weak")


def deny_phrases(text: str) -> list[str]:
    """The :data:`DENY_PHRASES` in ``text`` outside the two sanctioned sentences (the
    candidates-only one and the one tied to the ``none`` verdict); empty when it denies nothing."""
    flat = " ".join((text or "").split())
    for sanctioned in (CANDIDATES_ONLY, NONE_INSTRUCTION):
        flat = flat.replace(sanctioned, "")
    low = flat.lower()
    return [p for p in DENY_PHRASES if p in low]

#: the recall tool's description (MCP and OpenAI-style schemas alike)
RECALL_TOOL = (
    "Search memories by meaning and keywords. Use it before answering about the user, the "
    "project or earlier decisions, and before remember to find a key to update. Hits carry "
    "their age; a hit flagged 'may be outdated' must be confirmed before you rely on it. Each "
    f"hit has match '{STRONG}' (close to the query) or '{CANDIDATE}' (one of the closest memories; "
    f"it may not answer). The result's verdict: '{STRONG}'; '{CANDIDATE}' ({CANDIDATES_ONLY}); "
    f"'{INCOMPLETE}' (no match, but the search could not see every memory: search by meaning was not "
    f"available for all, or the files were still being checked; something may still be stored); or "
    f"'{NONE}'; {NONE_INSTRUCTION}."
)

#: the write policy's line on reading recall results (session start, MCP instructions)
POLICY_LINE = textwrap.fill(f"- Answer from a recall hit that answers the question. With '{CANDIDATE}' hits "
                            f"only, {CANDIDATES_ONLY}; {NONE_INSTRUCTION}.", width=98, subsequent_indent="  ",
                            break_on_hyphens=False)
