"""The rule table made ready to run: the checks a rule's match must pass, and the compiled rows.

:mod:`vault_mem.model.secret_rules` holds the rows as data; a row's ``check`` names one of
:data:`CHECKS` here (``not_fake``, ``has_digit``, ``jwt``, ``value``, ``literal``, ``token``,
``password``, ...). :data:`COMPILED_RULES` is the table compiled once, each row with the literal
it starts with as its marker (:func:`leading_literal`), so a text without it costs one substring
search. :class:`SecretFinding` is what every finder's span becomes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_names import PUBLIC_KEY_NAMES
from vault_mem.model.secret_rules import RULES, Rule
from vault_mem.model.secret_public import in_web_config, public_by_design
from vault_mem.model.secret_values import (
    UUID, credential_like, high_entropy, identifier_like, is_placeholder, looks_fake, random_letters,
    random_token,
)

__all__ = ["COMPILED_RULES", "SecretFinding"]

@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One suspected credential: what kind, and where (``text[start:end]``); never the value."""

    kind: str
    start: int
    end: int


# --- the rules -----------------------------------------------------------------------------
# The provider formats are data (vault_mem.model.secret_rules.RULES); here each row's ``check``
# name is given its meaning and its pattern is compiled once.

Check = Callable[[re.Match[str], str, int], bool]


def _value(m: re.Match[str], text: str, group: int = 0) -> str:
    """The original characters of a match group (rules that ran on lowercased text see these)."""
    return text[m.start(group):m.end(group)]


def _not_fake(m: re.Match[str], text: str, group: int) -> bool:
    return not looks_fake(_value(m, text, group))


def _has_digit(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group)
    return any(c.isdigit() for c in value) and not looks_fake(value)


def _digit_or_letters(m: re.Match[str], text: str, group: int) -> bool:
    """:func:`_has_digit`, or a tail of random letters of both cases after the prefix (a vendor
    whose tokens hold no digit: Hugging Face's ``hf_`` and 34 letters)."""
    value = _value(m, text, group)
    return _has_digit(m, text, group) or random_letters(value.split("_", 1)[-1])


# what a scheme named `<Word>Key`/`<Word>Token` may name that is no credential: a public or
# lookup key's kind, a page's or a sync's cursor
_NOT_AUTH_SCHEMES = PUBLIC_KEY_NAMES + ("page", "next", "continuation", "cursor", "resume", "sync", "change", "csrf")


def _scheme_token(m: re.Match[str], text: str, group: int) -> bool:
    """A token after a scheme named for a key or a token (``GenieKey <uuid>``): :func:`_token`,
    unless the scheme names a public or lookup key or a cursor (``PartitionKey``, ``NextToken``)."""
    scheme = m.group(1).lower()
    return not any(w in scheme for w in _NOT_AUTH_SCHEMES) and _token(m, text, group)


def _b64_text(part: str) -> str | None:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _jwt_header(m: re.Match[str], text: str, group: int) -> bool:
    """A JWT's first part is base64url JSON naming its algorithm; other dotted triples are not."""
    header = _b64_text(m.group(0).split(".", 1)[0])
    try:
        parsed = json.loads(header) if header else None
    except ValueError:
        return False
    return isinstance(parsed, dict) and "alg" in parsed and not looks_fake(m.group(0))


def _numeric_id(m: re.Match[str], text: str, group: int) -> bool:
    """Discord: the first part of a bot token is the base64 of the bot's numeric id."""
    first = _b64_text(m.group(0).split(".", 1)[0])
    return bool(first) and first.isdigit() and not looks_fake(m.group(0))


def _is_value(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group).strip("\"'")
    return bool(value) and not is_placeholder(value, quoted=True) and not looks_fake(value)


def _password_value(m: re.Match[str], text: str, group: int) -> bool:
    """After an explicit ``password`` keyword any literal of 4 characters or more is one, words
    included (``.netrc``'s ``password marmalade-engine-river``)."""
    value = _value(m, text, group).strip("\"'")
    return len(value) >= 4 and not is_placeholder(value, quoted=True)


def _literal_credential(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group)
    # (a public key given by flag is no password: `minisign -Vm file -P <public key>`)
    return credential_like(value) and not is_placeholder(value, quoted=True) and not public_by_design(value)


def _token(m: re.Match[str], text: str, group: int) -> bool:
    """A token after its scheme: a literal credential, or a UUID (Splunk HEC, Postmark, Heroku
    tokens are UUIDs; after ``Authorization: <Scheme>`` a UUID is no object's id)."""
    if UUID.fullmatch(_value(m, text, group)):
        return not is_placeholder(_value(m, text, group), quoted=True)
    return _literal_credential(m, text, group)


def _entropy(m: re.Match[str], text: str, group: int) -> bool:
    """A random-looking literal (:func:`high_entropy`): for places a name could stand too."""
    value = _value(m, text, group)
    return high_entropy(value) and not is_placeholder(value, quoted=True) and not looks_fake(value)


def _random_name(m: re.Match[str], text: str, group: int) -> bool:
    """:func:`_entropy`, and not a name made of words and numbers (``data-platform-staging-eu1``,
    ``orders_service_v2``): where a resource's name stands as often as a key."""
    return _entropy(m, text, group) and not identifier_like(_value(m, text, group))


def _not_web_config(m: re.Match[str], text: str, group: int) -> bool:
    """A Google API key, unless it sits in a Firebase web or app config (:func:`in_web_config`)."""
    return _not_fake(m, text, group) and not in_web_config(text, m.start(), m.end())


def _basic_auth(m: re.Match[str], text: str, group: int) -> bool:
    """Docker's ``"auth"``: the base64 of ``user:password`` with a real password."""
    decoded = _b64_text(_value(m, text, group).replace("+", "-").replace("/", "_").rstrip("="))
    if not decoded or ":" not in decoded:
        return False
    user, _, pw = decoded.partition(":")
    return bool(pw) and pw != user and not is_placeholder(pw, quoted=True)


def _mixed(m: re.Match[str], text: str, group: int) -> bool:
    """Random-looking (:func:`random_token`), for prefixes short enough to occur by chance."""
    value = _value(m, text, group)
    return random_token(value.split(".", 1)[-1], min_len=0) and not looks_fake(value)


CHECKS: dict[str, Check] = {
    "not_fake": _not_fake, "has_digit": _has_digit, "digit_or_letters": _digit_or_letters, "jwt": _jwt_header, "numeric_id": _numeric_id,
    "value": _is_value, "password": _password_value, "scheme_token": _scheme_token, "literal": _literal_credential, "token": _token, "basic_auth": _basic_auth, "mixed": _mixed,
    "entropy": _entropy, "random_name": _random_name, "not_web_config": _not_web_config,
}


@dataclass(frozen=True)
class _Compiled:
    kind: str
    pattern: re.Pattern[str]
    check: Check
    group: int
    lower: bool
    markers: tuple[str, ...]


def _leading_literal(pattern: str) -> str:
    """The literal a pattern starts with, look-behinds skipped: ``g(?<![a-z]g)lpat-`` gives
    ``gl`` (the alternation stops it). A rule is skipped on a text without it."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith(("(?<!", "(?<="), i):
            in_class = False
            while i < len(pattern) and (in_class or pattern[i] != ")"):
                in_class = (pattern[i] == "[") or (in_class and pattern[i] != "]")
                i += 1
            i += 1
            continue
        ch, nxt = pattern[i], pattern[i + 1:i + 2]
        if ch == "\\" and nxt and not nxt.isalnum():
            ch, i = nxt, i + 1
        elif not (ch.isalnum() or ch in "_-:\"'= "):
            break
        if pattern[i + 1:i + 2] in ("*", "+", "?", "{"):
            break  # a repeated character is not a required literal
        out.append(ch)
        i += 1
    return "".join(out)


def _compile(rule: Rule) -> _Compiled:
    literal = _leading_literal(rule.pattern)
    markers = rule.markers or ((literal,) if len(literal) >= 2 else ())
    # compiled at its first use: most rules wait behind a marker a typical text does not hold
    return _Compiled(rule.name, lazy(rule.pattern), CHECKS[rule.check], rule.group, rule.lower, markers)


COMPILED_RULES: tuple[_Compiled, ...] = tuple(_compile(rule) for rule in RULES)
