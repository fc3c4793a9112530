"""Payment cards: a card number with what makes it usable online, its expiry date or its security
code, in any language a note is written in.

A card number alone is printed on receipts, invoices and test pages; with its expiry or its CVV it
pays. So a number counts here when it is a card's (13 to 19 digits in a card's grouping, a card
network's first digit, its Luhn check digit right) and an expiry (``08/29``, ``exp 11/2027``) or a
security code's label (``CVV``, ``CVC``, ``CID``, ``Prüfnummer``, ``cryptogramme``, ...) sits beside
it. Test cards pass: the documented ones are mostly zeros or a few repeated digits
(``4242 4242 4242 4242``, ``4000 0025 0000 3155``), and a line that says "test" names one.
"""

from __future__ import annotations

from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy

__all__ = ["card_numbers"]

Span = tuple[str, int, int]

# 13 to 19 digits, in groups of four (Visa, Mastercard, ...), 4-6-5 (Amex) or 4-6-4 (Diners), or run together
_CARD = lazy(r"(?<![\w.,/+-])(?:[2-6][0-9]{3}(?:(?P<sep>[ -]?)[0-9]{4}){2}(?P=sep)[0-9]{1,7}"
             r"|3[0-9]{3}[ -]?[0-9]{6}[ -]?[0-9]{4,5})(?![\w.,/-]?[0-9])")
# an expiry: a month and a year, `08/29`, `8/2029`, `08-29`, `2029-08` after an expiry word
_EXPIRY = lazy(r"(?<![0-9/.:-])(?:0?[1-9]|1[0-2])[ \t]?[/-][ \t]?(?:20)?[2-9][0-9](?![0-9/.:-])")
_EXPIRY_WORD = lazy(r"(?i:exp|valid|good[ \t]thru|thru|exp?ir|g[üu]ltig|ablauf|expira|vence|validit|scad|geldig|wa[żz]n"
                    r"|giltig|voimassa|срок|有効期限|有效期|만료)")
# the security code's label in the languages notes are written in, then (within a few words) 3 or 4 digits
_CVV = lazy(r"(?i:cvv2?|cvc2?|cid|csc|cvn|security[ \t]code|card[ \t]code|pr[üu]f(?:nummer|ziffer|code)|sicherheitscode"
            r"|kartenpr[üu]fnummer|cryptogramme|code[ \t]de[ \t]s[ée]curit[ée]|c[oó]digo[ \t]de[ \t]seguran[cç]a"
            r"|c[oó]digo[ \t]de[ \t]seguridad|codice[ \t]di[ \t]sicurezza|beveiligingscode|kontrollsiffra|kod[ \t]cvv"
            r"|tarkistusnumero|код[ \t]безопасности|セキュリティコード|安全码|보안코드)"
            r"[^\n0-9]{0,12}[0-9]{3,4}(?![0-9])")
_TEST = lazy(r"(?i:(?<![a-z])(?:test|testing|sandbox|dummy|fake|example|sample|beispiel|exemple|ejemplo|prueba)(?![a-z]))")
_REACH = 120  # how far on either side of the number its expiry or code is looked for


def luhn_valid(digits: str) -> bool:
    """Does ``digits`` end in its Luhn check digit, as every payment card number does?"""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _test_number(digits: str) -> bool:
    """A documented test card: mostly zeros, or a few digits repeated (4242..., 4111..., 5555...)."""
    body = digits[1:-1]
    return body.count("0") >= len(body) // 2 or len(set(body)) <= 3


def card_numbers(text: str) -> Iterator[Span]:
    """A payment card number with its expiry or security code beside it (see the module)."""
    if len(text) < 16 or sum(map(text.count, "0123456789")) < 13:
        return  # (fewer digits than any card number: most memories stop here, at C speed)
    if "/" not in text and "-" not in text and not _CVV.search(text):
        return
    for m in _CARD.finditer(text):
        digits = "".join(c for c in m.group() if c.isdigit())
        if not 13 <= len(digits) <= 19 or not luhn_valid(digits) or _test_number(digits):
            continue
        before, after = max(0, m.start() - _REACH), min(len(text), m.end() + _REACH)
        line_start = text.rfind("\n", before, m.start()) + 1 or before
        line_end = text.find("\n", m.end(), after)
        if _TEST.search(text, line_start, line_end if line_end >= 0 else after):
            continue  # (its line, as far as the reach: a long line is not read whole for each number)
        near_expiry = _EXPIRY.search(text, m.end(), min(len(text), m.end() + 40))
        if not near_expiry:
            for e in _EXPIRY.finditer(text, before, after):
                if e.end() <= m.start() or e.start() >= m.end():
                    if _EXPIRY_WORD.search(text, max(before, e.start() - 30), e.start()):
                        near_expiry = e
                        break
        if near_expiry or _CVV.search(text, before, after):
            yield "payment card", m.start(), m.end()
