"""Seed phrases: a wallet's recovery words in BIP-39 (English and other lists) and Monero.

- :func:`seed_phrases`: 12 or more words of the BIP-39 English list in a row (a wallet's
  recovery phrase), optionally numbered; the list is :mod:`vault_mem.model.seed_words` (MIT).
  Under a list label ("Shopping list:") or a sentence naming them as something else ("Release
  codenames for 2027, in order:") the words count only with a valid BIP-39 checksum.

- :func:`slip39_shares`: a SLIP-39 share (Shamir backup) of 20 or 33 words of its own list, by its
  RS1024 checksum;

- :func:`monero_seeds`: 25 words of Monero's list; :func:`labelled_phrases`: a phrase of words
  after a label naming it (:data:`PHRASE_LABEL`); :func:`valid_mnemonic` checks a BIP-39 checksum.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import unicodedata
import zlib
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_tokens import Span
from vault_mem.model.seed_words import BIP39_ENGLISH
from vault_mem.model.seed_words_other import LANGUAGES, other_lists
from vault_mem.model.seed_words_slip39 import SLIP39_WORDS

__all__ = ["PHRASE_LABEL", "labelled_phrases", "monero_seeds", "seed_phrases", "seed_word", "slip39_shares",
           "valid_mnemonic", "word_phrase"]

# --- seed phrases --------------------------------------------------------------------------

_SEED_MIN = 12  # BIP-39 phrases are 12, 15, 18, 21 or 24 words
_SEED_WORDS = frozenset(BIP39_ENGLISH)
# One mark per whitespace-separated token: 1 a list word, n a number ("1." numbering does not
# break a run), 0 anything else; a phrase is twelve 1s with only numbers between them.
_SEED_RUN = lazy(r"1(?:n*1){11,}")
_QUOTES = lazy(r"[\"'`]")
_WORD = lazy(r"[^\s,\"'`-]+")  # (split where seed_phrases splits its lowered copy)


def seed_phrases(text: str) -> Iterator[Span]:
    """Twelve or more BIP-39 words in a row, at least nine of them different: a recovery phrase.
    English words count by the run alone; the words of BIP-39's other lists when their checksum
    makes them a phrase (:func:`_other_language_phrases`)."""
    found = False
    for span in _english_phrases(text):
        found = True
        yield span
    if not found and len(text) >= 2 * _SEED_MIN - 1:  # (twelve characters, spaced)
        yield from _other_language_phrases(text)


def _english_phrases(text: str) -> Iterator[Span]:
    low = text.lower()
    if "," in low or "-" in low:  # "abandon, ability, ..." and "abandon-ability-..."
        low = low.replace(",", " ").replace("-", " ")
    if '"' in low or "'" in low or "`" in low:  # a list of quoted words (`["olive", "sudden", ...]`)
        low = low.replace('"', " ").replace("'", " ").replace("`", " ")
    tokens = low.split()
    # C-speed pre-check: too few distinct list words for any phrase (most texts stop here)
    if len(tokens) < _SEED_MIN:
        return
    if len(_SEED_WORDS.intersection(tokens)) < 8 and (
            ")" not in low and "." not in low or len(_SEED_WORDS.intersection(_NUMBERED.sub("", t) for t in tokens)) < 8):
        return
    # "word:" is a label, not part of a phrase; a phrase may be quoted and assigned to any name
    # (`MNEMONIC="word ... word"`, `seed: 'word ...'`): the name and the quotes are not its words
    # (a number written against its word, "1.addict" / "12)snap", numbers a list as "1. addict" does)
    stripped = [_NUMBERED.sub("", _ASSIGNED.sub("", t)).strip("\"'`;").rstrip(".,;") for t in tokens]
    # (a number, or a table's or a list's mark between words: the phrase copied into a Markdown
    # table, `| 1 | worry |`, one word a row)
    marks = "".join(["1" if t in _SEED_WORDS else "n" if (len(t) <= 3 and t.rstrip(".):").isdigit()) or t in _LIST_MARKS else "0"
                     for t in stripped])
    runs = [(m.start(), m.end() - 1) for m in _SEED_RUN.finditer(marks)]
    if not runs:
        return
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]  # only when a run exists
    for first, last in runs:
        if len(set(stripped[first:last + 1]) & _SEED_WORDS) >= 9:
            start, end = spans[first][0], spans[last][1]
            # (words quoted one by one are a list in code, `["apple", "banana", ...]`, unless a
            # seed's label stands before them on their line, or their checksum makes them a phrase)
            listed = _listed(text, start) or (_QUOTES.search(text, start, end) is not None and not _SEED_LABEL.search(
                text, text.rfind("\n", 0, start) + 1, start))
            if listed and not valid_mnemonic([t for t in stripped[first:last + 1] if t in _SEED_WORDS]):
                continue
            yield "seed phrase", start, end


_NUMBERED = lazy(r"^[0-9]{1,2}[.)](?=[a-z])")
_LIST_MARKS = frozenset(["|", "*", "•", "·"])


# `mnemonic=` before a phrase's first word, or a label written against it in a script that puts
# no space after its colon ("シードフレーズ：word ...", read as `...:word` once normalised)
_ASSIGNED = lazy(r"^(?:[a-z_][a-z0-9_.-]{0,60}=|[^\x00-\x7f][^\s:]{0,40}:)")


# Monero's (and its forks') seeds: 25 words, the last a checksum that repeats one of the others,
# picked by the CRC-32 of the words' first three letters. No list is needed: the list's words differ
# in their first three letters, so two words of a seed that start alike are the same word, and a
# run of words passes the checksum only when its last word repeats the one the CRC names (a run
# of prose one time in some thousands, where its punctuation and short words have not already
# broken it). The older 13-word form is not read: a 1-in-12 checksum is too weak against prose.
_MONERO_LENGTH = 25
_MONERO_WORD = lazy(r"[a-z]{3,12}")
_MONERO_RUN = lazy(r"(?<![\w-])[a-z]{3,12}(?:[ \t]{1,4}(?:\r?\n[ \t]{0,8})?[a-z]{3,12}){24,60}(?![\w-])")


def monero_seeds(text: str) -> Iterator[Span]:
    """A run of 25 lower-case words whose last word is its Monero checksum word."""
    if len(text) < _MONERO_LENGTH * 4:
        return
    n = _MONERO_LENGTH
    for m in _MONERO_RUN.finditer(text):
        spans = [(w.start(), w.end()) for w in _MONERO_WORD.finditer(text, m.start(), m.end())]
        words = [text[a:b] for a, b in spans]
        for first in range(len(words) - n + 1):
            run = words[first:first + n]
            if run[-1] != run[zlib.crc32("".join(w[:3] for w in run[:-1]).encode()) % (n - 1)] or len(set(run)) < n - 3:
                continue
            by_prefix: dict[str, str] = {}
            if all(by_prefix.setdefault(w[:3], w) == w for w in run):
                yield "seed phrase", spans[first][0], spans[first + n - 1][1]
                return


# SLIP-39 shares (Trezor's Shamir backup): 20 words (a 128-bit secret) or 33 (256-bit) of the
# SLIP-39 list, whose last three are an RS1024 checksum over the words' 10-bit values, keyed by
# "shamir" (or "shamir_extendable"). A run of list words passes the checksum about once in 10^9:
# no label is needed, and a list of everyday words ("academic", "cricket", ...) is never one.
_SLIP39_INDEX = {w: i for i, w in enumerate(SLIP39_WORDS)}
_SLIP39_LENGTHS = (20, 33)
_SLIP39_RUN = lazy(r"(?<![\w-])[a-z]{4,8}(?:[ \t,]{1,4}(?:\r?\n[ \t]{0,8})?(?:[0-9]{1,2}[.)][ \t]{0,2})?[a-z]{4,8}){19,66}(?![\w-])")
_RS1024_GEN = (0xE0E040, 0x1C1C080, 0x3838100, 0x7070200, 0xE0E0009, 0x1C0C2412, 0x38086C24, 0x3090FC48,
               0x21B1F890, 0x3F3F120)


def _rs1024_valid(values: list[int], customization: bytes) -> bool:
    chk = 1
    for v in itertools.chain(customization, values):
        b = chk >> 20
        chk = (chk & 0xFFFFF) << 10 ^ v
        for i in range(10):
            if (b >> i) & 1:
                chk ^= _RS1024_GEN[i]
    return chk == 1


def slip39_shares(text: str) -> Iterator[Span]:
    """A SLIP-39 share: 20 or 33 words of its list in a row whose RS1024 checksum holds (see above)."""
    if len(text) < 20 * 5:
        return
    for m in _SLIP39_RUN.finditer(text.lower()):
        spans = [(w.start(), w.end()) for w in _MONERO_WORD.finditer(text.lower(), m.start(), m.end())]
        values = [_SLIP39_INDEX.get(text[a:b].lower(), -1) for a, b in spans]
        for n in _SLIP39_LENGTHS:
            # (a share is a run of its own, or ends the run its label's words start: the first and the
            # last window of a run are read, so a text made of list words costs four checksums a run)
            for first in sorted({0, len(values) - n}) if len(values) >= n else ():
                run = values[first:first + n]
                if -1 not in run and (_rs1024_valid(run, b"shamir") or _rs1024_valid(run, b"shamir_extendable")):
                    yield "seed phrase (SLIP-39 share)", spans[first][0], spans[first + n - 1][1]
                    return


def seed_word(word: str) -> bool:
    """Is ``word`` (any case, trailing punctuation ignored) on the BIP-39 list?"""
    return word.lower().rstrip(".,;:") in _SEED_WORDS


# A label that says what follows is a list of things ("Shopping list:", "Ingredients:"): many
# BIP-39 words are everyday nouns, so twelve of them under such a label are a list, unless their
# checksum makes them a wallet's phrase (a random list passes it one time in 16 or less).
_LIST_LABEL = lazy(r"(?i:\b(?:list|lists|ingredients|groceries|shopping|packing|inventory|menu|items|todo|to-do)\b)")
_SEED_LABEL = lazy(r"(?i:seed|phrase|mnemonic|recovery|wallet|backup)")
_WORDS_LABEL = lazy(r"(?i:words)")  # a seed's label alone ("12 words:"), not in a sentence naming them
_INDEX = {w: i for i, w in enumerate(BIP39_ENGLISH)}
# Prose that ends in a colon right before the words: three words or more, so a bare "Seed:" or
# "12 words:" (the layout of a backup note) is not one.
#: how far before the words a naming label may start
_NAMING_REACH = 160
_NAMING_LABEL = lazy(r"[^\W\d_]{2,}(?:[^\w\n]{1,4}\w+){2,}[^\w\n]{0,4}:[ \t]*\Z")


def _listed(text: str, start: int) -> bool:
    """Does a list label, and no seed-phrase label, introduce the words at ``start`` (on their line,
    or alone on the line above)?"""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if not before.strip(" \t-*+\u2022"):  # (a bullet is no label: "Groceries:" above "- rice" names the list)
        before = text[text.rfind("\n", 0, max(0, line_start - 1)) + 1:line_start]
    if _SEED_LABEL.search(before):
        return False
    # a list label, or a sentence that names what the words are ("Release codenames, in order:"):
    # words introduced as something else are that thing, unless their checksum says otherwise
    # (a naming label is short: searched in the line's end, since every start of an unanchored
    # search of a long line scanned the rest of it, quadratic in the line's length); "words" is a
    # seed's label by itself ("12 words:", "metamask words"), not in a sentence that says what the
    # words are for ("Words for the spelling game:")
    naming = _NAMING_LABEL.search(before[-_NAMING_REACH:]) is not None
    if not naming and _WORDS_LABEL.search(before):
        return False
    return naming or bool(_LIST_LABEL.search(before))


# What names a wallet's or an account's phrase of words, in the languages of secret_words: the
# label that makes twelve plain words a recovery phrase whatever list they come from (a phrase of
# BIP-39's other lists counts without a label when its checksum is valid: _other_language_phrases)
PHRASE_LABEL = lazy(r"(?<![^\W\d_])(?:seed|mnemonic\w{0,4}|mn[ée]monique|mnem[óo]nic\w{0,2}|recovery[ _-]phrase|backup[ _-]phrase"
                    r"|secret[ _-](?:recovery[ _-])?phrase|frase|phrase[ _-]de|semilla|semente|graine|palabras"
                    r"|wiederherstellungs\w{0,10}|wörter|woorden|parole|herstelzin|слова|фраза|mots[ _-]de|(?:12|15|18|21|24)[ \t]mots)(?![^\W\d_])"
                    # (Chinese, Japanese and Korean write a label against the word before it: no boundary)
                    r"|助记词|助記詞|恢复短语|恢復短語|复原短语|復元フレーズ|リカバリーフレーズ|シードフレーズ|ニーモニック"
                    r"|복구[ ]?구문|시드[ ]?구문|니모닉", re.IGNORECASE)
# the short words of sentences in those languages: a phrase of list words holds none of them
_FUNCTION_WORDS = frozenset("""
the and for with that this from are was you your our not but all can will have has into then than them they
que los las del por para con una uno sus como pero más mas est les des une pour dans avec sur pas qui sont aux
und der die das ein eine mit von für nicht ist sind auf den dem zum zur per che non una sono della delle gli nel
com uma não dos das pelo pela
""".split())
_PHRASE_WORD = lazy(r"[^\W\d_]{3,9}")
_PHRASE_SIZES = (12, 15, 18, 21, 24)


def word_phrase(value: str) -> bool:
    """Twelve, fifteen, eighteen, twenty-one or twenty-four lower-case words of three to nine letters,
    nine of them different or more, none of them the small words sentences are made of: the shape
    of a BIP-39 phrase in any of its languages (numbering and commas allowed). Judged only where
    a label names a phrase (:data:`PHRASE_LABEL`)."""
    value = unicodedata.normalize("NFC", value)  # (an accent typed as its own mark: `e` and U+0301)
    words = [w for w in value.replace(",", " ").split() if not (w.rstrip(".):").isdigit() and len(w) <= 3)]
    if len(words) not in _PHRASE_SIZES or len(set(words)) < max(9, len(words) - 3):
        return False
    return all(_PHRASE_WORD.fullmatch(w) and w.islower() and w not in _FUNCTION_WORDS for w in words)


_PHRASE_AFTER = lazy(r"[^\n:]{0,60}:[ \t]*(?:\r?\n[ \t]*)?(?P<words>[^\n]{20,300})")


def listed_phrase(value: str) -> bool:
    """Twelve to twenty-four words (numbering and commas allowed) all of one BIP-39 list, English or
    another, nine of them different or more: a phrase in a script whose words are no lower-case
    Latin letters (Japanese kana, Chinese characters, Korean), judged only where a label names a
    phrase, whatever its checksum (a phrase copied with a word wrong is still the wallet's)."""
    words = [w if w.isascii() else unicodedata.normalize("NFKC", w)
             for w in value.lower().replace(",", " ").replace("、", " ").split() if not w.rstrip(".):").isdigit()]
    if len(words) not in _PHRASE_SIZES or len(set(words)) < max(9, len(words) - 3):
        return False
    if all(w in _INDEX for w in words):
        return True
    if not _other_words().issuperset(words):
        return False
    return any(all(w in _other_index(lang) for w in words) for lang in LANGUAGES)


def labelled_phrases(text: str) -> Iterator[Span]:
    """A phrase of words (:func:`word_phrase`, :func:`listed_phrase`) on the line after a label that
    names one and its colon ("Frase de recuperación: masa dirigir ...", "Seed phrase:" then the
    words below, "助记词：港 易 ...")."""
    for m in PHRASE_LABEL.finditer(text):
        after = _PHRASE_AFTER.match(text, m.end())
        if after and (word_phrase(after.group("words").strip(" \t\r.")) or listed_phrase(after.group("words").strip(" \t\r."))):
            words = after.group("words").rstrip(" \t\r.")
            yield "seed phrase", after.start("words"), after.start("words") + len(words)
            return


def valid_mnemonic(words: list[str], index: dict[str, int] | None = None) -> bool:
    """Do ``words`` (12 to 24, from the list; ``index``: a list's word -> position, English's by
    default) carry a valid BIP-39 checksum? Every wallet's phrase does: its last bits are the
    first bits of the SHA-256 of the rest."""
    index = _INDEX if index is None else index
    n = len(words)
    if n not in (12, 15, 18, 21, 24) or any(w not in index for w in words):
        return False
    bits = 0
    for w in words:
        bits = (bits << 11) | index[w]
    check_bits = n // 3
    entropy = bits >> check_bits
    data = entropy.to_bytes((11 * n - check_bits) // 8, "big")
    return hashlib.sha256(data).digest()[0] >> (8 - check_bits) == bits & ((1 << check_bits) - 1)


# A phrase in one of BIP-39's other languages (Spanish, French, Italian, Portuguese, Czech,
# Japanese, Korean, Chinese): no label needed, as in English, but the checksum is, since a list of
# common words (Chinese's are its 2,048 most common characters) meets prose more often than
# English's does; a random run of list words passes it one time in 16 (12 words) to 256 (24).
# The lists are unpacked on the first text with words of theirs (:mod:`vault_mem.model.seed_words_other`).
# (a label may be glued to the first word by a colon, as Chinese and Japanese write: "助记词：港 易 ...")
# A phrase is the run of list words it stands in, but for at most _OTHER_SLACK words of a label
# beside it, and it begins or ends the run: every 12-word window of a longer run tried against the
# checksum (1 in 16 each) refused a Spanish shopping list of 16 to 20 common words 1 time in 4, and
# of 21 to 30 words 2 times in 5 (tests/test_secret_general7.py); the corpora's phrases all have
# at most one list word beside them
_OTHER_SLACK = 3
_OTHER_WORD = lazy(r"[^\s,:;、。\"'`()\[\]-]+")


@functools.cache
def _other_words() -> frozenset[str]:
    """Every word of the other lists (unpacked at the first call)."""
    return frozenset(itertools.chain.from_iterable(other_lists().values()))


@functools.cache
def _other_index(lang: str) -> dict[str, int]:
    """The list of ``lang``: word -> position (built when a run of its words is first read)."""
    return {w: i for i, w in enumerate(other_lists()[lang])}


def _other_language_phrases(text: str) -> Iterator[Span]:
    """Twelve to twenty-four words of one of BIP-39's other lists in a row whose checksum is valid
    (numbering between them allowed), at most three of them repeated."""
    low = text.lower()
    # (the lists are kept composed, NFKC; a text may come decomposed, as wallets export Japanese and
    # Korean: NFKD, kana and their voicing marks, Hangul as its letters)
    composed = low if low.isascii() else unicodedata.normalize("NFKC", low)
    tokens = composed.split()
    if len(tokens) < _SEED_MIN - 1:  # (one token may be the label and the first word)
        return
    every = _other_words()
    if len(every.intersection(tokens)) < 8:  # C-speed: most texts stop here
        return
    spans = [(m.start(), m.end()) for m in _OTHER_WORD.finditer(text)]
    words = [w if w.isascii() else unicodedata.normalize("NFKC", w)
             for w in (text[a:b].lower().rstrip(".") for a, b in spans)]
    marks = "".join(["1" if w in every else "n" if len(w) <= 3 and w.rstrip(".)").isdigit() else "0" for w in words])
    for run in _SEED_RUN.finditer(marks):
        at = [i for i in range(run.start(), run.end()) if marks[i] == "1"]
        if len(at) > 24 + _OTHER_SLACK:
            continue  # a text of list words (a word list, a dictionary), not one phrase
        for lang in LANGUAGES:
            index = _other_index(lang)
            if sum(words[i] in index for i in at) < _SEED_MIN:
                continue
            for size in (24, 21, 18, 15, 12):
                if not 0 <= len(at) - size <= _OTHER_SLACK:
                    continue
                for k in dict.fromkeys((0, len(at) - size)):  # the run's first words, or its last
                    phrase = [words[i] for i in at[k:k + size]]
                    if len(set(phrase)) >= size - 3 and valid_mnemonic(phrase, index):
                        yield "seed phrase", spans[at[k]][0], spans[at[k + size - 1]][1]
                        return
