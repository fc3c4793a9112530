"""Judging a value found after a label: does it look like the credential its label names?

:func:`judge` takes a label's class (``password``, ``secret``, ``key``; see
:func:`vault_mem.model.secret_names.key_class`), its sign and the value, and decides by the rules
in :mod:`vault_mem.model.secret_labels`' docstring. The shapes of a password a person chose live
here too, so every finder asks the same questions: :func:`plain_password`,
:func:`word_and_number`, :func:`symbol_word_number`, :func:`scrambled`, :func:`passphrase`,
:func:`password_shaped` and :func:`strong_unlabelled` (a value no word could be, for passwords
named by their use alone). :func:`near_stop` and :func:`gives_example` say when a word between a
label and a value, or the sentence around it, names the value an id, a digest or an example.
What a value looks like whatever its label (placeholder, word, random) is
:mod:`vault_mem.model.secret_values`.
"""

from __future__ import annotations

import re
import string

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_names import (
    BARE_TOKEN, DIGEST, GRANTING_KEY_END, KEY_QUALIFIERS, PUBLIC_KEY_NAMES, PUSH_WORDS, SEP, SHORT_ID,
    PROSE_WORDS, STATE_SUFFIXES, STATE_WORDS, Span, is_key_char, is_sentence,
)
from vault_mem.model.secret_public import TAILSCALE_PUBLIC_KEYS, analytics_cookies, public_by_design
from vault_mem.model.secret_values import (
    CONSONANT_RUN, NAMED, UUID, credential_like, high_entropy, identifier_like, is_placeholder, is_wordy,
    PASSWORD_SYMBOLS, key_chord, random_hex, random_token, record_id, sayable, type_name, unguessable, unguessable_unworded,
)
from vault_mem.model.seed_words import BIP39_ENGLISH

__all__ = ["CODES_LABEL", "CODE_KINDS", "CODE_PARTS", "COMMON_WORDS", "NOTE_WORDS", "address_word_before", "camel_password", "camel_phrase", "digest_input", "granted_uuid", "grants", "judge", "quoted_words",
           "name_before", "name_like", "paired_password", "passphrase", "password_shaped", "plain_password", "prose_key",
           "sentence_passphrase",
           "public_word_before", "random_groups", "strong_unlabelled", "symbol_word_number", "unsigned_password",
           "two_words_number", "unquoted_argument", "word_and_number"]

_RUN_TOGETHER = lazy(r"[a-z]{14,40}")
_WORDS_THEN_NUMBER = lazy(r"[a-z]{10,30}[0-9]{2,6}")  # lower-case words run together, then a number
_SETTING = lazy(r"[a-z][a-z_]{1,20}=[a-z]{1,20}")
_NAMED_IN_RUN = ("pass", "word", "secret", "token", "key", "auth", "login", "user", "config", "default", "change", "reset")


def plain_password(value: str) -> bool:
    """A password with no digits or symbols that still reads as one after a password label: a
    lowercase word of 8 letters or more that is not a state ("expired", "incorrect"), or a
    passphrase of three words or more joined by ``-``, ``_`` or ``.``."""
    if value.isalpha() and value.islower():
        # a long run of letters is words run together (a state word is rarely 14 letters long)
        return (len(value) >= 8 and value not in STATE_WORDS
                and (len(value) >= 14 or not value.endswith(STATE_SUFFIXES)))
    parts = [p for p in SEP.split(value) if p]
    alpha = sum(p.isalpha() and len(p) >= 3 for p in parts)
    return (len(parts) >= 3 and len(value) >= 12 and (alpha >= 3 or (alpha == 2 and any(p.isdigit() for p in parts)))
            and all(p.isalnum() for p in parts) and not any(p.lower() in STATE_WORDS for p in parts))


# A password as people make one: a word, a joint, a number ("Juniper_4658", "Rhubarb-4904",
# "Nimbus@4675", "Sparrow2927!"). is_wordy reads `Word-1234` as a name (`Release-2024`, `X-Access-Token`),
# which it is anywhere but after a password's label.
# (or two words joined, then the number: "quartz.walnut29", "meadow-Lark482")
_WORD_NUMBER = lazy(r"(?P<word>[^\W\d_]{4,14}|[^\W\d_]{3,14}[-_.][^\W\d_]{3,14})(?P<joint>[-_.@#!$%&*+=]{0,2})(?P<number>[0-9]{2,8})[!?#@$%&*]{0,2}")
# two or three capitalised words run together and a number (`LanternGlacier1117`): a password
# after a password's label, where a type's name ends in a size or a version (`HmacSha256`, `TokenV2`)
_CAMEL_WORDS = lazy(r"(?:[A-Z][a-z]{2,9}){2,3}")
_BIT_SIZES = frozenset({"128", "160", "192", "224", "256", "384", "512", "1024", "2048", "3072", "4096", "8192"})


def word_and_number(value: str, *, joined: bool = False) -> bool:
    """A word of four letters or more and a number of three digits or more, or two words joined
    and a number of two digits or more, as a person writes a password (``Juniper_4658``,
    ``quartz.walnut29``); ``joined``: only with a joint or symbol between (``Rhubarb-4904``,
    not ``Summer2024``), where no sign before the value says it is one. A state word
    ("expired-2024") or an all-capital tag (``HTTP-404``) is no password."""
    m = _WORD_NUMBER.fullmatch(value)
    if not m:
        return False
    word, parts = m.group("word"), SEP.split(m.group("word"))
    if len(m.group("number")) < (2 if len(parts) == 2 or (m.group("joint") and len(word) >= 6) else 3):
        return False  # (one word needs three digits: `Route66` is a name; two words and two digits are made,
        # and so is one long word set apart from its two digits, `Kanelbulle_99`)
    return (not word.isupper() and all(p.islower() or p.istitle() for p in parts)
            and not any(p.lower() in STATE_WORDS for p in parts)
            and (not joined or bool(m.group("joint")) or len(parts) == 2 or value[-1] in "!?#@$%&*"))


def camel_password(value: str) -> bool:
    """Two or three capitalised words run together and a number of three to six digits that is no
    key size (``LanternGlacier1117``, ``RavenSierra8778``): a password a person made, which reads as
    a CamelCase type's name (:func:`~vault_mem.model.secret_values.type_name`) but for its number;
    ``HmacSha256`` and ``RsaKey2048`` name an algorithm and its size."""
    value = value.rstrip("!?#@$%&*")
    number = value.lstrip(string.ascii_letters)
    word = value[:len(value) - len(number)]
    return (3 <= len(number) <= 6 and number.isdigit() and number not in _BIT_SIZES and _CAMEL_WORDS.fullmatch(word) is not None
            and all(sayable(p.lower()) and p.lower() not in STATE_WORDS for p in _CAPITALISED.findall(word)))


_CAPITALISED = lazy(r"[A-Z][a-z]+")
# three or four capitalised words run together, a mark after them at most (`BlueHarborTulip`,
# `MapleCrescentOtter!`)
_CAMEL_PHRASE = lazy(r"(?:[A-Z][a-z]{2,11}){3,4}[!?#@$%&*]?")
# the words a type's, a class's or a field's name is made of (`UsernamePasswordCredentials`,
# `PlainTextSecretStr`, `PasswordResetForm`): a name in code, not a password of words
_TYPE_WORDS = frozenset("""
str string field type secret password passwd pass token credential credentials optional config settings manager
provider handler factory value input hash hasher policy model schema form widget validator encoder decoder text
bytes data info request response client service store plain base abstract error exception reset change update
entity attribute column property param params object array list dict map int bool char sensitive masked hidden
encrypted hashed protected safe secure auth login user account key interface impl builder option options spec state
result event payload message body header rule strength generator length hint prompt dialog view controller
component page screen box label button modal mixin wrapper holder ref reference source resolver loader reader
writer parser serializer codec cipher digest verifier checker strategy mode kind format pattern template default
none null empty flag enum class struct record tuple proto mock fake stub test dummy sample example basic bearer
oauth session cookie cache connection pool context env vault storage file path name id uuid""".split())
# the words of a product's, a screen's or a setting's name (`ShowHideToggle`, `NetlifyBuildEnvironment`,
# `ActiveDirectorySync`, `GuestNetworkPortal`): what a note names after a password's label, no password of words
_PRODUCT_WORDS = frozenset("""
show hide toggle icon eye theme focus dark light repository repo variables variable environment build deploy sync
directory active network portal guest platform team oncall email link magic ticket desk help calendar reminder
verify push unlock face biometric hello windows encryptor bean realm fallback sso sign single single code time
uppercase lowercase high medium low require console dashboard settings admin panel wizard tab menu sidebar modal
tomorrow today tonight yesterday later soon weekly daily monthly quarterly yearly""".split())


def camel_phrase(value: str) -> bool:
    """Three or four capitalised words run together, none of them a word a type's or a field's
    name is made of (:data:`_TYPE_WORDS`), a product's or a screen's (:data:`_PRODUCT_WORDS`), a note's or a
    policy's (:data:`NOTE_WORDS`), a participle nor a state (``BlueHarborTulip``,
    ``OliviaMartinezRiver``): a password of words a person made, which reads as a CamelCase
    type's name but that no program names so. Two words (``SecretStr``, ``BlueHarbor``) stay a
    name; after a password's label only."""
    if _CAMEL_PHRASE.fullmatch(value) is None:
        return False
    words = [w.lower() for w in _CAPITALISED.findall(value)]
    # (a verb's participle, `LoadedFromEnvironment`, `InheritedFromParent`, says where the value comes from)
    return all(sayable(w) and w not in _TYPE_WORDS and w not in STATE_WORDS and w not in NOTE_WORDS
               and w not in _PRODUCT_WORDS
               and not (len(w) >= 5 and w.endswith(("ed", "ing"))) for w in words)


# A word, a number and a symbol at either end ("!Lantern52", "#quokka13", "Marmot95*"): a password a
# person made, where a name or an issue reference has no symbol after its number or before its word
_SYMBOL_WORD_NUMBER = lazy(r"(?P<lead>[!#$%&*?@^~+=]{1,2})?(?P<word>[A-Za-z]{4,14})[0-9]{2,6}(?P<tail>[!#$%&*?@^~+=]{1,2})?")


def symbol_word_number(value: str) -> bool:
    """A word of four letters or more, a number of two digits or more, and a symbol before or after
    them (``!Lantern52``, ``Marmot95*``), not a state word: a password after its word with no sign."""
    m = _SYMBOL_WORD_NUMBER.fullmatch(value)
    return bool(m and (m.group("lead") or m.group("tail")) and not m.group("word").isupper()
                and m.group("word").lower() not in STATE_WORDS)


_KIND_RUN = lazy(r"[A-Z]+|[a-z]+|[0-9]+")


def scrambled(value: str) -> bool:
    """Eight letters and digits or more of both cases whose kind changes at most characters
    (``REb7C6ZgWF``: eight runs in ten), as a generator draws them; names and models change
    kind a few times (``iPhone15Pro``, ``OAuth2Flow``: five or six runs in ten or eleven)."""
    if not 8 <= len(value) <= 64 or not value.isascii() or not value.isalnum():
        return False
    runs = _KIND_RUN.findall(value)
    return (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
            and 10 * len(runs) >= 7 * len(value))


def two_words_number(value: str) -> bool:
    """Two words joined and a number (``saffron.Orbit36``, ``meadow-lark482``): a password a person
    made, which no sign needs to name (``password <word>.<Word><digits>``); one word and a number
    (``password Reset2024``, ``pw Route66``) may be a name."""
    value = value.rstrip(".,;:!?)")
    return len(SEP.split(value)) == 2 and word_and_number(value) and not any(p.lower() in CODE_PARTS for p in SEP.split(value))


# A passphrase a generator or a person made of common words: joined by one separator
# (`<word>-<word>-<word>`, `<word>.<word>.<word>.<word>`), or run together (`<word><word><word>`).
# The words are BIP-39's English list (2,048 common words, the one the gate ships); a run of them
# is no state ("expired"), name or code reference in any language, so it counts after a password's
# label in any language and with no sign between ("password" then four words joined by dashes).
COMMON_WORDS = frozenset(w for w in BIP39_ENGLISH if len(w) >= 3)
_JOINED_WORDS = lazy(r"[a-z]{3,12}(?P<sep>[-._])[a-z]{3,12}(?:(?P=sep)[a-z]{3,12}){1,9}")
CODE_PARTS = frozenset(["self", "this", "env", "config", "settings", "secrets", "vault", "com", "org", "net", "io", "dev",
                         "local", "internal", "example", "password", "passwd", "secret", "token", "key", "value", "prod"])


def _run_of_words(value: str, least: int) -> bool:
    """Is ``value`` (lowercase letters) ``least`` or more common words run together?"""
    n = len(value)
    best = [0] + [-1] * n  # best[i]: most words covering value[:i] (-1: no cover)
    for i in range(3, n + 1):
        for j in range(max(0, i - 8), i - 2):
            if best[j] >= 0 and value[j:i] in COMMON_WORDS:
                best[i] = max(best[i], best[j] + 1)
    return best[n] >= least


def _dice_word(part: str) -> bool:
    """A word a diceware list could hold (EFF's 7,776 reach past BIP-39's 2,048: ``thistle``,
    ``tundra``): 3 to 9 letters with a vowel and no run of four consonants, so a syllable, not an
    abbreviation or a random run."""
    return 3 <= len(part) <= 9 and sayable(part)


_NUMBER_LAST = lazy(r"[-_.][1-9][0-9]{1,5}\Z")  # (not an instance's index: `docker-compose-network-2`, `web-app-01`)


def passphrase(value: str, *, signed: bool = True) -> bool:
    """Common words made into a password (see above): three or more joined by ``-`` or ``_``,
    four or more by ``.``, or run together; with no sign before it (``signed=False``), four or
    more, every one common. After a sign, four to eight different words joined by ``-`` or ``_``
    count as well when every one reads as a word (:func:`_dice_word`): a diceware passphrase drawn
    from a longer list than BIP-39's."""
    value = value.strip("\"'`").rstrip(".,;:!?)")
    m = _JOINED_WORDS.fullmatch(value)
    number = _NUMBER_LAST.search(value) if m is None and signed else None
    if number:
        # words and then a number as the last part ("purple-monkey-dishwasher-42"): the words judged
        # as a passphrase, three of them at least whatever joins them
        m = _JOINED_WORDS.fullmatch(value[:number.start()])
        parts = value[:number.start()].split(m.group("sep")) if m else []
        # (the number is a person's mark: half the words common or sayable is enough)
        return len(parts) >= 3 and len(set(parts)) == len(parts) and sum(p in STATE_WORDS for p in parts) <= 1 \
            and not any(p in CODE_PARTS for p in parts) and not is_sentence(parts) \
            and 2 * sum(p in COMMON_WORDS or _dice_word(p) for p in parts) >= len(parts)
    if m:
        parts = value.split(m.group("sep"))
        # (with no sign before it, four words, every one common: `pw release-notes-draft` names a file)
        least, common = (4 if m.group("sep") == "." or not signed else 3), (len(parts) - 1 if signed else len(parts))
        # (a state word among five generated words or more is chance: "liberty-short-try-language-steel")
        states = sum(p in STATE_WORDS for p in parts)
        if len(parts) < least or states > (len(parts) >= 5) or any(p in CODE_PARTS for p in parts) or is_sentence(parts):
            return False
        n_common = sum(p in COMMON_WORDS for p in parts)
        return n_common >= common or (
            signed and m.group("sep") != "." and 4 <= len(parts) <= 8 and len(set(parts)) == len(parts)
            and all(map(_dice_word, parts)))
    return 14 <= len(value) <= 60 and value.isascii() and value.isalpha() and value.islower() \
        and not NAMED.fullmatch(value) and _run_of_words(value, 3 if signed else 4)  # (not `currentpassword`)


_CASE_DIGIT_CASE = lazy(r"(?<![A-Za-z])[a-z][A-Z]{1,2}[a-z]?[0-9]|[0-9][a-z]+[A-Z]|[A-Z][0-9]+[a-z]{2}")


def _letter_noise(value: str) -> bool:
    """Twelve to 64 lower-case ASCII letters with a run of four consonants (no English syllable
    has one; ``strengths`` has three) that are not common words run together."""
    # (six letters or more of their own: a mask of x's, `xxxxxxxxxxxx`, is a run of one)
    return 12 <= len(value) <= 64 and value.isascii() and value.isalpha() and value.islower() and len(set(value)) >= 6 \
        and CONSONANT_RUN.search(value.replace("y", "a")) is not None and not _run_of_words(value, 2)


def _scrambled_part(value: str) -> bool:
    """Does one part of a dotted value change case next to digits as no name does: a lone lower-case
    letter starting a run of capitals and digits (``iL03tcha``, ``mWq9``), digits then lower case then a capital, or a
    capital, digits and lower case (names write ``V2Async``, ``s3Bucket``, ``ec2``)?"""
    return any(_CASE_DIGIT_CASE.search(p) and not identifier_like(p) for p in value.rstrip(".,;)").split("."))


def quoted_words(value: str) -> bool:
    """Words quoted after a password's label: a passphrase, not a sentence (no word of prose, a
    state word at most one of five). Four to eight lower-case words, all but one of them common;
    or three to eight parts that a person's passphrase shows by its form: capitalised words
    ("Cobble Heron Saturn"), or words with a number or a word-and-number among them
    ("Puffin Lagoon 88", "PlumMaple8785 orbit 624")."""
    parts = value.strip("\"'`").split()
    if not 3 <= len(parts) <= 8 or len({p.lower() for p in parts}) != len(parts):
        return False
    words = [p for p in parts if p.isalpha()]
    low = [w.lower() for w in words]
    odd = [p for p in parts if not p.isalpha()]
    if not words or any(not (w.islower() or w.istitle()) or not 3 <= len(w) <= 12 for w in words):
        return False
    if is_sentence(low) or any(w in CODE_PARTS for w in low) or sum(w in STATE_WORDS for w in low) > len(low) // 5:
        return False
    numbers = [p for p in odd if p.isdigit() and len(p) <= 6]
    made = [p for p in odd if word_and_number(p) or camel_password(p)]
    if len(numbers) + len(made) != len(odd) or len(numbers) > 1 or len(made) > 1:
        return False
    if made or (numbers and len(words) >= 2) or (len(words) >= 3 and all(w.istitle() for w in words)):
        return True
    return not odd and len(words) >= 4 and sum(w in COMMON_WORDS for w in low) >= len(low) - 1


# Words that point to where a passphrase lives, say there is none or state a policy for it ("see the
# vault entry", "ask dana", "same as the root one", "not set yet", "must be at least four words"): a
# sentence about it, not the phrase itself
_POINTER_WORDS = frozenset("""
see ask check stored kept lives saved vault manager file env environment variable here there same usual
not none unset empty your my our their set yet in from use find look prompt prompted enter type typed
must should least minimum maximum characters chars words letters digits long length required policy
""".split())
# the words of a note or a policy where a value would go: prose's, a pointer's, and a few more
# (`AskTheAdmin`, `NotSetYet`, `ThreeWordsMinimum`, `WhateverYouWant`): one list for every rule that reads a
# value's words as a note rather than a password
NOTE_WORDS = PROSE_WORDS | _POINTER_WORDS | frozenset("""
above after anything before below call contact now own read still try want whatever whichever work works""".split())


def sentence_passphrase(value: str) -> bool:
    """Four to ten words quoted after a *passphrase*'s own label (``BORG_PASSPHRASE='<w> <w> at <w>'``,
    "GPG passphrase → \"<w> <w> under the <w> <w> 1987\""): a passphrase is a sentence by design,
    so prose words count here where :func:`quoted_words` refuses them after a password's label; a
    word pointing to where it lives or saying there is none (:data:`_POINTER_WORDS`) makes it a
    sentence about it, and a placeholder passes."""
    inner = value.strip("\"'`“”‘’")
    parts = inner.split()
    if not 4 <= len(parts) <= 10 or len({p.lower() for p in parts}) < len(parts) - 1:
        return False
    words = [p for p in parts if p.isalpha()]
    if len(words) < len(parts) - 1 or not all(p.isalpha() or (p.isdigit() and len(p) <= 6) for p in parts):
        return False
    return not any(w.lower() in _POINTER_WORDS for w in words) and not is_placeholder(inner, quoted=True) \
        and not any(w.lower() in STATE_WORDS for w in words[-1:])


def judge(cls: str, op: str, value: str, *, quoted: bool, code: bool, ends: bool, hint: bool = True,
          phrase: bool = True) -> str | None:
    """The finding's kind if ``name <op> value`` assigns a literal credential, else None.

    ``code`` marks an unquoted lowercase word in code position (``user, password = split``,
    ``connect(password=pw)``): a variable, not a value. ``ends``: the value ends its sentence
    or line (a plain password after a label, not the first word of a clause). ``hint``: the
    value could be a type hint; one written with a ``!`` or ``?`` right after it is not.
    ``phrase``: capitalised words run together may be the password (:func:`camel_phrase`); not after
    a label naming a property of it ("password policy: ThreeWordsMinimum").
    """
    if "=" in value and analytics_cookies(value):
        return None  # `Cookie: _ga=GA1.2...`: a page's analytics cookie, whatever names it
    if cls == "password" and quoted and op != "(" and quoted_words(value):
        return "password assignment"  # `passphrase "<word> <word> <word> <word> <word>"`: words quoted as the value
    if cls in ("password", "network") and op != "(" and (not code or op == "") and passphrase(value, signed=op != "" or quoted):
        # words made into a password: a dotted run is no code reference here (quotes sign it as a
        # value as a sign does: `password "<word>-<word>-<word>-<word>"`)
        return "password assignment"
    if cls == "password" and op in ("is", ":", "", "--") and not code and "." in value and word_and_number(value, joined=op == "") \
            and not any(p.lower() in CODE_PARTS for p in SEP.split(value)):
        # two words and a number joined by a dot after a password's label in prose or a `Label:`
        # ("Heslo ... je <word>.<word><digits>"): a person's password, not a dotted name in code, which
        # an `=` assigns (`password = settings.pass12`) and whose parts a program names (`self.`)
        return "password assignment"
    if cls == "password" and (op == "--" or (op in (":", "=", "is") and not code)) and _letter_noise(value):
        # twelve lower-case letters or more that no words make (`vdmiezgdejwjkioy`, a generated app
        # password written whole): after a password's name in a config line, a directive or prose
        return "password assignment"
    if cls in ("password", "network") and op == "is" and not code and "." in value.strip(".") and unguessable(value) \
            and _scrambled_part(value):
        # a dotted value after "the wifi password ... is" whose part mixes cases around digits no name
        # mixes so (`IIH.iL03tcha`): a password with a dot in it; a program's dotted name keeps each
        # part an identifier (`settings.dbPass2`, `AppConfig.V2`)
        return "password assignment"
    if code or is_placeholder(value, quoted=quoted) or NAMED.fullmatch(value) or value.startswith("--") or key_chord(value):
        return None  # (`creds = " --username=" + auth` builds a command line)
    if cls == "password" and op == "" and scrambled(value):
        return "password assignment"  # (before the type-name test: `O2R8UziJdi` is no type a hint names)
    if cls == "network":
        # a network's name after its word is an SSID (`Office-5G`, `Linksys-0422`, `TP-Link_2354`):
        # only a value no name could be, three kinds of character and a symbol or twelve long
        return "password assignment" if op != "(" and " " not in value.strip() and unguessable(value) else None
    if public_by_design(value) and cls != "password" and not (cls == "secret" and value.startswith("client-")):
        # a public key's prefix under a password's label proves nothing, and `client-` (a common
        # word) proves nothing under a secret's: `API_SECRET=client-...` is judged as any value
        return None
    # A quoted value or `=` assigns a literal; after a bare `Word:` (prose, YAML, type hints),
    # `is` or a --flag, the value must look like a credential by itself.
    if op == "(" and " " in value.strip():
        return None  # a literal passed to a call with a space in it is a prompt: `getpass("DB password: ")`
    # (a literal passed to a call is judged by its look alone)
    strong = (quoted and op != "(") or op in ("=", ":=", "=>", "==")
    if not strong and hint and type_name(value) and not (cls == "password" and (camel_password(value) or (phrase and camel_phrase(value)))):
        return None  # (`password: SecretStr` names a type; capitalised words and a number are a password)
    words = len(value.split())
    if cls != "password" and words == 2 and (quoted or strong):
        # a scheme and a token, as an Authorization value is written: "Bearer X", "FlyV1 fm2_X"
        scheme, token = value.split()
        return "secret assignment" if len(scheme) <= 12 and scheme.isalnum() and high_entropy(token) else None
    if (cls != "password" and words > 1) or words >= 5:
        return None  # tokens and keys have no spaces; a passphrase of five words or more is prose
    if op == "" and cls == "password":
        # `pw X` with no sign: only a value no word or name could be (a UUID with no sign is an
        # item's id: `bw get password <uuid>`, "password <uuid> in the vault"), or words run
        # together and a number ending the sentence ("guest wifi, password pebblemaple42"): a noun
        # the label modifies goes on after it ("the password reset2 flow"), and one word and a
        # number may be a name (`pw Deploy2024`)
        return "password assignment" if (unguessable(value) or word_and_number(value, joined=True)
                                         or (ends and _WORDS_THEN_NUMBER.fullmatch(value) is not None
                                             and not any(w in value for w in _NAMED_IN_RUN))
                                         or symbol_word_number(value)) and not UUID.fullmatch(value) else None
    if op == "--" and cls == "secret" and not quoted and passphrase(value, signed=False):
        # `--token <word>-<word>-<word>-<word>`: a token a generator made of common words, given
        # to the flag that takes it (four words or more, every one common: no resource's name)
        return "secret assignment"
    if op == "":  # `token X`, `api key X`: no sign, so the value must be unmistakable
        # a digest's hex after a bare "key" is a fingerprint; after "secret" or "token", a secret
        if cls != "password" and not quoted and BARE_TOKEN.fullmatch(value) and high_entropy(value) \
                and not (cls == "key" and DIGEST.fullmatch(value)):
            return "secret assignment" if cls != "key" else "high-entropy string in assignment"
        return None
    if cls == "key":
        return "high-entropy string in assignment" if high_entropy(value) and not record_id(value) else None
    if cls == "password":
        hit = credential_like(value) or (strong and len(value) >= 4 and not value.isdigit())
        hit = hit or (ends and words == 1 and plain_password(value)) \
            or (words == 1 and (word_and_number(value) or camel_password(value) or (phrase and camel_phrase(value))))
        # (words run together read as a password wherever the sentence goes on: "my password was
        # harbortundracandle and it still works"; fourteen letters or more, ending as no state or
        # manner does, "incorrectlytyped", and naming no credential, "passwordconfirmation")
        hit = hit or (words == 1 and _RUN_TOGETHER.fullmatch(value) is not None and not value.endswith(STATE_SUFFIXES)
                      and not any(w in value for w in _NAMED_IN_RUN))
        return "password assignment" if hit or (strong and value.isdigit() and len(value) >= 6) else None
    if _SETTING.fullmatch(value):
        return None  # a setting after the label (a log's "auth ok: user=dana"): a name and a word, no secret
    if not strong and SHORT_ID.fullmatch(value):
        return None  # `--apiKey 2X9R4HUZ3L`: a key's id, no sign or quote that assigns a secret
    hit = credential_like(value) and len(value) >= 8
    hit = hit or (strong and len(value) >= 16 and not is_wordy(value))
    hit = hit or UUID.fullmatch(value) is not None  # tokens that are UUIDs: Postmark, Consul, Heroku, Railway
    return "secret assignment" if hit else None


def grants(name: str) -> bool:
    """Is ``name`` a key's named for what it grants (:data:`GRANTING_KEY_END`), so that a UUID
    given to it is a credential (``SAUCE_ACCESS_KEY``, ``PD_INTEGRATION_KEY``)?"""
    return GRANTING_KEY_END.search(name.lower().replace(" ", "_")) is not None


def granted_uuid(tail: re.Match[str]) -> Span | None:
    """The UUID an assignment's tail gives, if that is all it gives and no placeholder."""
    raw = tail.group("value")
    value = raw.strip("\"'`")
    if not UUID.fullmatch(value) or is_placeholder(value, quoted=True):
        return None
    at = tail.start("value") + raw.index(value)
    return "secret assignment", at, at + len(value)


def random_groups(groups: list[str]) -> bool:
    """Number groups drawn, not listed: neither a series (years, versions, ids in order) nor repeats."""
    numbers = [int(g) for g in groups]
    return len(set(groups)) == len(groups) and numbers != sorted(numbers) and numbers != sorted(numbers, reverse=True)


def name_before(text: str, at: int) -> int | None:
    """Where the key name ending at ``at`` starts; None for a name longer than any real one. A
    dotted path longer than that (NixOS's `networking.wireguard.interfaces.wg0.privateKey`, a
    Spring property's) is named by its last parts: it starts after a dot within reach."""
    start, limit = at, max(0, at - 42)
    while start > limit and is_key_char(text[start - 1]):
        start -= 1
    if start == limit and start > 0 and is_key_char(text[start - 1]):
        dot = text.find(".", limit, at)
        return dot + 1 if dot >= 0 and text[dot + 1:dot + 2].isalpha() else None
    return start


def public_word_before(low: str, start: int) -> bool:
    """Does the word before a bare ``key`` say it is a public or lookup key ("cache key", "the
    search-only key"), or the word before a verb and a preposition that lead to it ("Cache
    restored from key: X", a CI log's line)? A word joined with ``-`` or ``_`` is read whole and by
    its last part (``search-only``, ``s3-object``)."""
    m = _WORD_BEFORE_KEY.search(low, max(0, start - 48), start)
    if m is None:
        return False
    word = m.group("word").strip("-_")
    # (a routing key is a queue's topic or an alerting service's integration secret: its value says which)
    return any(w.startswith(PUBLIC_KEY_NAMES) and w != "routing" for w in (word, re.split(r"[-_]", word)[-1]) if w)


# the word before a bare "key", or before a verb in the past and a preposition that lead to it
_WORD_BEFORE_KEY = lazy(r"(?<![a-z0-9_-])(?P<word>[a-z0-9_-]{1,30})"
                        r"(?:[ \t]{1,4}(?:[a-z]{2,16}ed|hit|miss|found))?(?:[ \t]{1,4}(?:from|for|with|by|under|using|at|on))?"
                        r"[ \t_-]{0,4}\Z")


# a digest or MAC named before a credential's word, which is its input: "SHA-256 of \"password\" is <hex>",
# `HMAC-SHA256(key="key", msg=...) = <hex>`, `md5("admin")`
_DIGEST_OF = lazy(r"(?:sha-?(?:1|224|256|384|512)|sha3[\w-]{0,8}|md5|hmac[\w-]{0,12}|blake[23]\w{0,3}|hash(?:ed)?|digest|checksum"
                  r"|pbkdf2[\w-]{0,12}|bcrypt|argon2\w{0,3}|scrypt)(?:(?P<of>[ \t]{1,4}of[ \t]{1,4}(?:(?:the|my|our|your|a)[ \t]{1,4})?[\"'`]?)"
                  r"|[ \t]{0,2}\([^()\n]{0,60})\Z")


def digest_input(low: str, start: int) -> str | None:
    """Is the credential word at ``start`` the input a digest or a MAC is named for on its line:
    ``"of"`` after "SHA-256 of" ("SHA-256 of \"password\" is X": what follows is the digest), ``"call"``
    inside a digest's call (``HMAC-SHA256(key="key", ...) = X``: a value far after it is the digest;
    one given to the word, ``sha256(password="X")``, is still judged)."""
    line = low.rfind("\n", 0, start) + 1
    m = _DIGEST_OF.search(low, max(line, start - 80), start)
    return None if m is None else "of" if m.group("of") else "call"


_ADDRESS_WORDS = frozenset(PUSH_WORDS)


def address_word_before(low: str, start: int) -> bool:
    """Do the two words before a bare ``token`` say it is a device's address for push messages
    ("FCM registration token: X", "APNs device token X"), which a sender is given, not a credential?
    (A runner's "registration token" alone is GitLab's credential.)"""
    words = re.split(r"[^a-z0-9]+", low[max(0, start - 32):start].strip(" \t-_"))
    return any(w in _ADDRESS_WORDS for w in words[-2:])


def prose_key(text: str, start: int, cls: str, qualifiers: tuple[str, ...] = KEY_QUALIFIERS) -> bool:
    """Is a bare ``key`` (class 'key') here the end of "api key", "secret key", ...?"""
    before = text[max(0, start - 12):start].rstrip(" \t-_").lower()
    return cls != "key" or before.endswith(qualifiers)


# --- the label of codes, and passwords named by their use alone ------------------------------

#: the kinds of codes that are a password by another name (a 2FA recovery code under its label)
CODE_KINDS = ("recovery", "backup", "2fa", "mfa", "otp", "scratch", "emergency")
# (Google prints its list under "BACKUP VERIFICATION CODES")
CODES_LABEL = lazy(rf"(?:{'|'.join(CODE_KINDS)})[ _-]?(?:verification[ _-])?codes?(?![a-z])")


def strong_unlabelled(value: str) -> bool:
    """A value that needs no label to be a password (:func:`unguessable`), not a path, flag or
    placeholder."""
    value = value.rstrip(".,;:!?)")
    return (unguessable(value) and not value.startswith(("-", "/", ".", "~"))
            and "/" not in value and not is_placeholder(value, quoted=True))


def password_shaped(value: str) -> bool:
    """A value no word or name could be (:func:`strong_unlabelled`), or a person's password made
    of a word, a symbol and digits (``Quartz!2023map``): a symbol between letters and digits is
    no identifier's, path's or address's."""
    if strong_unlabelled(value):
        return True
    core = value.rstrip(".,;)")
    symbol = any(c in _PERSON_SYMBOLS for c in core[1:-1]) or _DOLLAR_DIGIT.search(core) is not None \
        or (core[-1:] in _LAST_SYMBOLS and _WORD_DIGITS.fullmatch(core[:-1]) is not None)
    return (len(core) >= 8 and symbol and any(c.isdigit() for c in core)
            and any(c.isalpha() for c in core) and not is_placeholder(core, quoted=True) and "/" not in core
            and "\\" not in core)


def unsigned_password(value: str, *, asked: bool = False) -> bool:
    """A value that only its place says is a password, with no sign or label on its own line (the
    reply below a chat's request for a token, the part after the user in "creds: admin X"): drawn
    at random by its look (:func:`random_token`, :func:`high_entropy`, :func:`random_hex` or, short,
    :func:`unguessable_unworded`), or a person's word and number with a symbol (``Wren-larch44!``);
    ``asked`` (a password was asked for by name), also without one where its words are not all
    capitalised as a name's are (``Falcon-tiger1424``, not ``Team-Platform42``).
    A name (``ReleaseTrain-2024.11``, ``K8sSecretStore``, ``Team-Platform42``), a path or branch
    (``release/2024.11-RC2``), sign-in methods (``Okta+MFA``, ``2FA+TOTP``) are none; a ``/`` counts
    in a token pasted with it unescaped, random at 20 characters without it."""
    value = value.rstrip(".,;")
    if not value or is_placeholder(value, quoted=True) or value.startswith(("-", "/", ".", "~")):
        return False
    if "/" in value:
        return random_token(value.replace("/", ""), min_len=20)
    if word_and_number(value, joined=True) and (any(c in PASSWORD_SYMBOLS for c in value) or (
            asked and not all(w[0].isupper() for w in _LETTER_RUN.findall(value)))):
        return True
    if identifier_like(value) or type_name(value):
        return False
    return (random_token(value, min_len=16) or high_entropy(value) or random_hex(value, min_len=32)
            or unguessable_unworded(value))


# The parts of a name, an id or a version: a word (lower-case, capitalised, an acronym, a camelCase
# compound: `Ledger`, `HSM`, `VolUp`, `YubiKey`), a word with its number (`LUKS2`, `EU1`, `build5`,
# `OAuth2`), a number with its unit, ordinal or short hex (`10s`, `1of5`, `3rd`, `0a1b2c`), a
# version (`v2`), a date's hour (`2024T10`)
_NAME_PART = lazy(r"[a-z]{1,14}|[A-Z][a-z]{1,14}|[A-Z]{1,6}|[A-Z]{0,4}[a-z]{1,14}(?:[A-Z][a-z]{1,14}){1,3}"
                  r"|[A-Z]{1,6}[0-9]{1,4}|[A-Z]{0,3}[a-z]{2,8}[0-9]{1,4}"
                  r"|[0-9]{1,4}(?:of[0-9]{1,2}|st|nd|rd|th|[smhdk]|[a-f][0-9a-f]{0,5})?|v[0-9]{1,4}|[0-9]{4}T[0-9]{2}")
_NAME_JOINS = lazy(r"[-.+,=#/:_]")
_HASH_WORD = lazy(r"#(?![0-9])")
_ANY_DATE = lazy(r"(?<![0-9])[0-9]{1,4}[-./][0-9]{1,2}[-./][0-9]{1,4}(?![0-9])")


def name_like(value: str) -> bool:
    """A value made of a name's, an id's or a version's parts (:data:`_NAME_PART`) joined by two or
    more of ``-.+,=#/:_``: a product's or an alias's name (``Ledger-Nano-S2``, ``Alias-Prod-EU1``,
    ``Key-Share-1of5``, ``Stored-In-HSM#1``), a version (``v1.2.3-beta.4+build5``), a date in any
    order (``03.11.2024T10:00``), settings (``UID=0,GID=0``), a rule (``Min-12-chars,1-digit``), a
    method (``Hold-Power+VolUp-10s``). One judgement for every rule that reads a value by its place
    alone (a use's words, a line below its label, a key that locks, an SNMP setting): a person's
    password there has a symbol no name has (``Purple-Monkey-77!``; a ``!`` after a date is a note's)."""
    core = value.strip("\"'`").rstrip(".,;:)")
    if _ANY_DATE.search(core):
        core = core.rstrip("!")
    if _HASH_WORD.search(core):
        return False  # (`#` numbers a name's item, `HSM#1`; between words, `Plover#Canyon-71`, a password's symbol)
    parts = _NAME_JOINS.split(core)
    mixed = [p for p in parts if len(p) >= 4 and not p.isalpha() and not p.isdigit()]
    if len(mixed) >= 2 and len({len(p) for p in mixed}) == 1:
        return False  # groups of one length, letters and digits mixed (`AB12-CD34-EF56`): a drawn code's
    # (a number among them: words alone joined are a passphrase's, `correct-horse-battery-staple`)
    return len(parts) >= 3 and any(c.isdigit() for c in core) and all(p and _NAME_PART.fullmatch(p) for p in parts)


_LETTER_RUN = lazy(r"[A-Za-z]+")
_VERSION_PART = lazy(r"[0-9]\.[0-9]")  # (`node:20.1.0`, `v1.2`: a version, no password)


def paired_password(value: str) -> bool:
    """The part after the user in one argument that gives a user and a password (``curl -u ops:X``,
    ``lftp -u ops,X``, Samba's ``-U ops%X``, HTTPie's ``-a ops:X``): the pair says what it is, so a
    person's word and number (``Juniper_4658``) and words joined count, as after a password's label,
    and so does a run of letters and digits that is no version; not a placeholder."""
    made = (password_shaped(value) or word_and_number(value, joined=True) or passphrase(value) or credential_like(value)
            or (len(value) >= 8 and sum(c.isalpha() for c in value) >= 4 and any(c.isdigit() for c in value)
                and _VERSION_PART.search(value) is None))
    return made and not is_placeholder(value, quoted=True)


def unquoted_argument(words: list[str], i: int) -> str:
    """The ``i``-th shell word as the command receives it: without one pair of quotes around it
    (a password quoted for its symbols, ``add_user ops 'X!y'``); "" past the last word."""
    if i >= len(words):
        return ""
    word = words[i]
    return word[1:-1] if len(word) > 2 and word[0] in "'\"" and word[-1] == word[0] else word


# a word and digits and then a symbol no sentence ends with (`Copper6285$`, `TULI7336mango^`): the
# symbol put last to meet a policy (`!` and `?` end sentences; `Gopher2024!` in prose is spoken of)
_LAST_SYMBOLS = "$^%*~#&"
_WORD_DIGITS = lazy(r"[A-Za-z]{3,}[0-9]{2,}[A-Za-z]*|[0-9]{2,}[A-Za-z]{3,}[0-9]*")
_PERSON_SYMBOLS = "!#%^&*~?"  # (not `@`, `$`, `=`, `+`: addresses, variables, settings, sums)
_DOLLAR_DIGIT = lazy(r"[A-Za-z]\$[0-9]")  # `Harbor$0407`: a `$` before a digit names no variable


# --- what stops a value: a word naming it an id, a digest, an example -----------------------

# What the value between is named as, when not the credential: an id, a digest, a ciphertext, a
# public key ("fixed in commit X", "key id X", "token sha256: X", "secret: ENC[...]", "ssh-ed25519 X")
NEAR_STOP = lazy(r"(?<![a-z])(?:ids?|identifier|commit|sha[0-9]{0,3}|md5|hash(?:ed|es)?|digest|checksum|fingerprint"
                  r"|integrity|etag|nonce|txid|tx|rev|revision|build|version|uuid|guid|trace|request|req|object|names?"
                  r"|file|path|url|link|public|pub|salt|iv|encrypt[a-z]*|enc|cipher[a-z]*|sealed[a-z]*|signature|sig|hint|length"
                  r"|count|ref|arn|published|documented|sample|well-known|dummy|fake|cache|primary|foreign|partition|sort"
                  r"|idempotency|dedup|lookup|index|routing|ssh-[a-z0-9-]+|ecdsa-[a-z0-9-]+|vault|secure|kms|hmac-sha[0-9]+|sha-?[0-9]+"
                  r"|kty|e\.g|example|for instance|such as|like|data:[a-z-]{1,30}/[a-z0-9.+-]{1,40}"
                  # Tailscale's public keys by their prefix (secret_public.TAILSCALE_PUBLIC_KEYS; `privkey:` is a secret)
                  rf"|{'|'.join(TAILSCALE_PUBLIC_KEYS)}"
                  # "example" in the languages of secret_words (a policy's sample is no password)
                  r"|ejemplo|p\.ej|exemplo|exemple|beispiel|z\.b|esempio|voorbeeld|bijvoorbeeld|przyk[łl]ad|örnek|ornek"
                  r"|ví dụ|vi du|contoh|misalnya|exempel|esimerkki|příklad|priklad|példa|exemplu|пример|例えば|例如|예시|예를)(?![a-z])"
                  # (a word naming a machine it runs on is no id: "the token for the build server X")
                  r"(?![- ](?:server|host|box|machine|agent|node|vm|runner|bot)s?(?![a-z]))")


# "like" and "such as" compare: "a password like 'hunter2' is weak" gives an example, as "for example"
# does, but "password like Xk9#mQ2vL8pR for staging" gives the value. They stop the value only in an
# example's sentence: a general label (an article, "any", a plural: "a password like", "passwords such
# as") or words that judge or rule on passwords ("weak", "avoid", "policy", "never use").
_LIKE = frozenset(("like", "such as"))
_EXAMPLE_REACH = 160
_EXAMPLE_LINE = lazy(r"(?<![\w])(?:an?|any|some|every|e\.g|eg|weak|strong|bad|good|poor|easy|easily|hard|guess\w*|common"
                     r"|obvious|simple|trivial|insecure|secure|polic(?:y|ies)|rules?|guidelines?|requirements?|avoid|never"
                     r"|don'?t|do not|choose|pick|should|example|instance|crack\w*|brute[ -]?forc\w*|dictionary"
                     r"|rejects?|accepts?|allows?|forbids?|blocks?|fields?|forms?|formats?|valid\w*)(?![\w])")
# a plural before "like" speaks of a kind ("values like X", "strings such as X")
_LABEL_PLURAL = lazy(r"[a-z]{2,}[^s\W]s[ \t]{1,4}\Z")


# A sentence that gives a sample value or rules on what one may be ("e.g. X is weak", "por ejemplo
# X", "z.B. X", "the policy rejects X", "never use X"): the value in it is a sample, no credential.
_EXAMPLE_SAYING = lazy(r"(?<![\w])(?:e\.g|eg|z\.b|p\.ej|i\.e|example|exemple|ejemplo|exemplo|beispiel|esempio|voorbeeld"
                       r"|bijvoorbeeld|przyk[łl]ad|örnek|příklad|пример|例えば|例如|예시|예를|for instance|such as|weak|strong"
                       r"|guess\w*|obvious|insecure|polic(?:y|ies)|rules?|requirements?|avoid|never|don'?t|do not|crack\w*"
                       r"|brute[ -]?forc\w*|dictionary|rejects?|forbids?|must|muss|debe|doit|deve|sample|dummy|fake|made[ -]up"
                       r"|format|pattern|regex|pick|choose|like)(?![\w])")


def gives_example(low: str) -> bool:
    """Does the sentence ``low`` (lowercased) give a password as an example or rule on passwords
    (:data:`_EXAMPLE_SAYING`)? A value in it is a sample, where no label names it."""
    return _EXAMPLE_SAYING.search(low) is not None


# an owner named after the label ("the key for the encrypted volume", "the password of an
# encrypted archive"): the word before "encrypted" makes it the owner's, not the value's
_OWNER_BEFORE = lazy(r"(?:for|of|on|to|unlocks?|opens?)[ \t]{1,4}(?:(?:the|my|our|this|that|an?|its|their)[ \t]{1,4})?\Z")


_SESSION_BEFORE = lazy(r"(?<![a-z])(?:session|sess)[ \t_-]{0,2}\Z")


def near_stop(low: str, start: int, end: int) -> bool:
    """Does a word between ``start`` and ``end`` of ``low`` name the value after it an id, a digest,
    a ciphertext or an example (:data:`NEAR_STOP`)? "like" and "such as" do only in an example's
    sentence (see :data:`_EXAMPLE_LINE`); "encrypted" does not where it names the label's owner
    ("the key for the encrypted volume is X": the volume is encrypted, X opens it)."""
    for m in NEAR_STOP.finditer(low, start, end):
        if m.group() in ("id", "ids") and _SESSION_BEFORE.search(low, max(0, m.start() - 12), m.start()):
            continue  # "my session id ... is X": a session's id is the session, whoever holds it is signed in
        if m.group().startswith("encrypt") and _OWNER_BEFORE.search(low, max(start, m.start() - 24), m.start()):
            continue
        if m.group() not in _LIKE:
            return True
        # (the sentence around it, within reach: a line of 80 KB made of labels is not read once per label)
        line_start = max(low.rfind("\n", max(0, m.start() - _EXAMPLE_REACH), m.start()) + 1, m.start() - _EXAMPLE_REACH)
        line_end = low.find("\n", m.end(), m.end() + _EXAMPLE_REACH)
        line = low[line_start:min(len(low), m.end() + _EXAMPLE_REACH) if line_end < 0 else line_end]
        if _EXAMPLE_LINE.search(line) or _LABEL_PLURAL.search(low, max(line_start, m.start() - 16), m.start()):
            return True
    return False
