"""Find credentials in text before they reach a memory file or a commit.

Why our own rules and not ``detect-secrets`` (1.5.0, the maintained library that fits best):
measured on the corpus in ``tests/test_policy.py`` it caught 57 of 77 positives (any kind counted)
and left 61 of 85 look-alikes clean when run the intended way (files on disk, default plugins and
filters). Its string API (``scan_line``) flags nearly every line of prose as a high-entropy string.
It took 270-400 ms on a 64 KB body (these rules: about 2 ms), it has no rules for Anthropic,
Hugging Face or Google keys, and it pulls in ``requests``. The rules below are specific (a vendor
prefix, or a keyword plus a literal) and reject look-alikes on purpose: placeholders, variable
references, commit hashes, UUIDs, digests, paths, versions, type hints and prose.

Decisions a reader may look for:

- ``changeme``, ``password``, ``secret`` and the like as *values* are placeholders. They are what
  templates and docs put where a value goes. A well-known default is public knowledge, and
  refusing it would only teach agents to dodge the gate. For the same reason a URL whose password
  equals its user (``guest:guest``) or is ``pass`` passes. Such a word with a counter
  (``password123``, ``Admin2024!``) is refused: it is guessable, but people use it as a real
  password, and a fixture refused costs a rephrase where a password stored is synced everywhere.
- Values containing ``EXAMPLE`` (AWS's documented sample keys), ``xxxxx`` or ``REDACTED``, or made
  of words only (``xoxb-your-token-here``) are placeholders too, and so are references to where a
  secret lives (``$VAR``, ``${{ secrets.X }}``, ``os.environ[...]``, ``op://...``, "1Password").
- Publishable keys (Stripe ``pk_``, Mapbox ``pk.``, PostHog ``phc_``), public keys and
  certificates are public by design and pass, and so does the jwt.io documentation JWT.
- A page's analytics and consent cookies (``_ga=GA1.2...``, ``_fbp``, ``OptanonConsent``) pass in
  their public shapes, under a "cookie" label too: a visitor number and timestamps nothing signs in
  with. A session cookie beside them, or a long random run under their name, still counts.
- A quoted value or ``=`` assigns a literal, so any non-placeholder counts (``PASSWORD=sunshine``),
  except a bare lowercase word in code position (``user, password = split``, ``f(password=pw)``).
  After a bare ``Key:`` (prose, YAML, type hints), ``is`` or a ``--flag``, the value must look like
  a credential by itself (letters and digits, a symbol, inner capitals), so ``Token: expires soon``
  and ``password: SecretStr`` pass.
- Bare ``*_key`` names (``signing_key``, ``ENCRYPTION_KEY``) count only with a high-entropy value,
  because most ``key:`` fields hold names, not secrets.
- Known misses, traded for fewer false alarms: a password given with no keyword and no use
  ("unlock code X"; "log in ... with X" and "use X to unlock" count when X has a symbol and
  three character classes), a plain dictionary word after ``password:`` in prose unless it ends
  the sentence and is not a state ("my password: correcthorsebatterystaple" counts), a numeric
  PIN without its label (``PIN``/``PUK``/passcode/door code and four digits count). A value
  whose label comes after it counts when the label follows a sign, an arrow or "is the"
  ("X (that's the api secret)", "X <- ngrok authtoken", "X is the keystore password for ...");
  not when the label goes on as a noun ("X is the password policy"). A UUID alone on a hook host (``webhook.site/<uuid>``) is a public test inbox.
- An armoured block is judged by its armour: a private or secret key's armour is refused whole;
  any other's payload (a PGP *message*, a signature, a public key, a certificate) passes, even
  under a label naming a key ("encrypted to Mira's key:"). A PGP message is ciphertext that only
  its recipient's private key (or, for ``gpg -c``, its passphrase) opens; the secret is that key
  or passphrase, not the message, and refusing ciphertext would only teach people to paste it
  elsewhere, as for SOPS and sealed secrets (``encryptedData``), which pass the same way.
- A value that is a word of its own key's name (``POSTGRES_PASSWORD: postgres``, ``ADMIN_PASSWORD=admin``)
  is the default an image or template ships with, like ``guest:guest``. A Firebase web config's
  ``apiKey`` and ``appId`` ship in every page, and so do ``client-`` keys (Statsig's); RFC 7617's
  ``Aladdin:open sesame`` is documented for everyone. They pass.
- A literal handed to a call is judged by its look alone (``getpass("Password: ")`` is a prompt):
  a conversion (``[]byte("X")``, ``SecretStr("X")``), a call named for the credential
  (``.bearer_auth("X")``), a name and its value side by side (``define('DB_PASSWORD', 'X')``,
  ``Cookie("JSESSIONID", "X")``), the literals after the first of a sign-in call
  (``NetworkCredential("svc", "X")``, ``auth=("admin", "X")``).
- A random-looking value near a credential word counts in any syntax or language (secret_labels'
  ``near_value``), so a new tool's positional argument or a new language's word needs no row; what stops
  it is a word between naming the value an id, digest, ciphertext or example, or the value's own
  shape (UUID, ``0x`` hex, digest lengths, base58/bech32 addresses, dotted code names).
- A random token as a setting's value counts under a name of any words (``FROB_ACCESS=X``,
  ``{"authz": "X"}``, ``<frobAccess>X</frobAccess>``, ``--using X``: secret_fields'
  ``settings_values``), so an unknown vendor's setting needs no row; a name whose words say the
  value is an id, a digest, a public part or a thing's name passes (secret_names' ``public_name``).
- A Windows variable (``PASSWORD=%DB_PASSWORD%``) is a reference, as ``$VAR`` is: a ``%XX`` that
  decodes to no UTF-8 character is not read as a URL escape. Quotation marks of other typographies
  (« », „ “, ‘ ’, 「 」) quote a value as ASCII quotes do.
- A UUID after a token's or a secret's word alone is an id: idempotency, cursor, correlation and
  session tokens and Vault's leases are UUIDs as often as Postmark's or Consul's tokens are
  (blind29's rule for "upload token <uuid>" refused them; gate30 removed it).
- Hex bytes that count up by one step (``000102...0f``, ``00112233...ff``: the standards' test
  vectors) and a network card's address (``17:5b:6e:cf:51:90``) are no secret under any label.
  Twelve list words under a sentence that says what they are for ("Words for the spelling game:")
  count only with a valid checksum; "words" alone ("12 words:") still labels a phrase.
- A value with no label counts by its place where the place says what it is: the reply below a
  chat's request for a credential ("can you paste the token again", then the value alone), a new
  value on a line that says the old one was revoked or rotated (random values only, and not where
  the line names a certificate, commit, build or other public thing), a URL's password with its
  base64 ``/`` left unescaped (before a dotted host, random by itself).
- ``user:password@host`` counts without a scheme too (``admin:X@10.0.0.5``), before an IP address
  or a dotted host name, so image references (``node:20-alpine@sha256:...``) pass.

The map of the gate, one home a kind of credential:

- provider formats: one row each in :data:`vault_mem.model.secret_rules.RULES` (checks and
  compilation: :mod:`~vault_mem.model.secret_checks`);
- tokens by shape: :mod:`~vault_mem.model.secret_tokens`; URLs and connection strings:
  :mod:`~vault_mem.model.secret_urls`; private keys and key material:
  :mod:`~vault_mem.model.secret_keys`; seed phrases: :mod:`~vault_mem.model.secret_phrases`;
- values named by a label: :mod:`~vault_mem.model.secret_labels` (what a label is:
  :mod:`~vault_mem.model.secret_names`; judging its value: :mod:`~vault_mem.model.secret_judge`;
  a value near its label: :mod:`~vault_mem.model.secret_near`; other languages' words:
  :mod:`~vault_mem.model.secret_words`);
- values named by their place: fields, columns and files (:mod:`~vault_mem.model.secret_fields`),
  pairs and passwords named by their use (:mod:`~vault_mem.model.secret_pairs`), calls and
  commands (:mod:`~vault_mem.model.secret_commands`), codes, seeds and PINs
  (:mod:`~vault_mem.model.secret_codes`), the page's layout (:mod:`~vault_mem.model.secret_places`);
- what a value looks like: :mod:`~vault_mem.model.secret_values`, and what is public by design
  (publishable and public keys, analytics cookies): :mod:`~vault_mem.model.secret_public`; the text's forms
  (normalised, re-joined, decoded): :mod:`~vault_mem.model.secret_text`, and its disguises:
  :mod:`~vault_mem.model.secret_disguises`.

This module runs them all over a text and its forms (:func:`find_secrets`), and over a memory's
key and split fields (:func:`slug_secrets`, :func:`seam_secrets`).

Every pattern is linear-time. Matches start only at the start of a token (a look-behind), and each
repeat is a single character class, bounded where a later part could fail. So a megabyte of near
matches costs one pass, not a backtracking storm.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import string
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_cards import card_numbers
from vault_mem.model.secret_checks import COMPILED_RULES, SecretFinding
from vault_mem.model.secret_codes import listed_codes, one_codes, pin_codes, recovery_keys
from vault_mem.model.secret_commands import (
    call_credentials, command_credentials, directive_logins, flag_credentials, keyword_credentials,
    mail_pairs, positional_passwords, protocol_logins, written_credentials,
)
from vault_mem.model.secret_disguises import (
    char_code_runs, composed_values, joined_lists, phonetic_values, reversed_words, rot13, spelled_out, substituted,
)
from vault_mem.model.secret_fields import (
    block_values, credential_files, csv_exports, header_lists, named_values, request_headers, settings_values, table_cells,
    xml_elements,
)
from vault_mem.model.secret_keys import bearer_blobs, der_private_keys, key_blocks, private_keys, wallet_keys
from vault_mem.model.secret_judge import judge
from vault_mem.model.secret_labels import app_passwords, assignments, push_addresses
from vault_mem.model.secret_names import key_class, label_keywords
from vault_mem.model.secret_near import warned_values
from vault_mem.model.secret_pairs import (
    credential_pairs, key_id_pairs, login_rows, sentence_passwords, two_line_logins, unlabelled_passwords,
)
from vault_mem.model.secret_phrases import labelled_phrases, monero_seeds, seed_phrases, seed_word, slip39_shares
from vault_mem.model.secret_places import grouped_values, listed_parts, new_values, split_parts, values_below
from vault_mem.model.secret_text import View, encoded_runs, join_wrapped, lines_holding, normalise
from vault_mem.model.secret_tokens import (
    byte_arrays, cipher_keys, dotted_tokens, hex_prefixed_tokens, lower_prefixed_tokens, named_bytes,
    prefixed_tokens, token_words,
)
from vault_mem.model.secret_urls import (
    driver_dsns, pgpass_lines, scheme_urls, schemeless_passwords, signed_urls, url_passwords, webhook_urls,
)
from vault_mem.model.secret_values import (
    UUID, high_entropy, in_crypt_hash, is_placeholder, looks_fake, random_token, unguessable,
)

__all__ = ["find_secrets", "scattered_phrase", "seam_secrets", "slug_secrets"]

def _ascii_lower(text: str) -> str:
    """Lowercase without changing length, so offsets found in it are offsets in ``text``."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


_MAX_DEPTH = 2  # base64 inside base64 inside the text; deeper nesting is not a way people write keys
_DECODE_BUDGET = 256 * 1024  # decoded characters scanned per call: bounds a text made of runs
_AFTER_RULES = len(COMPILED_RULES) + 1


def _rule_findings(text: str, low: str) -> Iterator[tuple[int, SecretFinding]]:
    """(priority, finding) for the private-key blocks and every provider format in ``text``."""
    yield from ((0, f) for f in private_keys(text))
    for prio, rule in enumerate(COMPILED_RULES, start=1):
        subject = low if rule.lower else text
        if rule.markers:
            # a plain loop, not any(genexpr): this runs for every rule on every text read;
            # find_secrets over 3,000 memory files and their lines took 0.60 CPU-s with the
            # generators, 0.37 without (a first index reads every file through it)
            for mk in rule.markers:
                if mk in subject:
                    break
            else:
                continue
        for m in rule.pattern.finditer(subject):
            if rule.check(m, text, rule.group):
                yield prio, SecretFinding(rule.kind, m.start(rule.group), m.end(rule.group))


def _by_shape(text: str, low: str) -> Iterator[tuple[str, int, int]]:
    """Credentials known by shape and place, not by a vendor's prefix: key blocks that are not
    PEM, ``.pgpass`` lines, prefixed and three-part tokens, seed phrases, then labelled values
    (the finders of shapes, labels and places: see the module's map)."""
    if len(text) >= 16:  # shorter than any key block, .pgpass line, token or phrase
        yield from key_blocks(text)
        yield from pgpass_lines(text)
        yield from driver_dsns(text)
        words = token_words(text)  # (the token finders read only these)
        yield from prefixed_tokens(text, words)
        yield from hex_prefixed_tokens(text, words)
        yield from lower_prefixed_tokens(text, words)
        yield from byte_arrays(text)
        yield from cipher_keys(text)
        yield from der_private_keys(text, words)
        yield from bearer_blobs(text, words)
        yield from dotted_tokens(text, words)
        yield from webhook_urls(text)
        yield from signed_urls(text)
        yield from scheme_urls(text)
        yield from wallet_keys(text)
        yield from seed_phrases(text)
        if ":" in text:
            yield from labelled_phrases(text)
        yield from monero_seeds(text)
        yield from slip39_shares(text)
        yield from listed_codes(text, low)
        yield from recovery_keys(text)
        yield from phonetic_values(text)
        yield from split_parts(text, low)
        yield from listed_parts(text, low)
        if "\n" in text or "|" in text or ">" in text or "→" in text:  # (one row of names: `pg | db | X`)
            yield from login_rows(text)
            yield from two_line_logins(text)
        yield from credential_pairs(text)
        yield from one_codes(text)
        yield from card_numbers(text)
        yield from app_passwords(text)
        yield from push_addresses(text, low)
        yield from key_id_pairs(text)
        yield from new_values(text, low)
        yield from named_values(text, low)
        yield from table_cells(text, low)
        yield from csv_exports(text, low)
        yield from header_lists(text, low)
        yield from request_headers(text)
        yield from credential_files(text)
        yield from block_values(text)
        yield from xml_elements(text)
        yield from settings_values(text)
        yield from unlabelled_passwords(text, low)
        yield from call_credentials(text, low)
        yield from command_credentials(text, low)
        yield from flag_credentials(text, low)
        yield from positional_passwords(text)
        yield from protocol_logins(text)
        yield from directive_logins(text)
        yield from keyword_credentials(text)
        yield from values_below(text, low)
        yield from grouped_values(text, low)
        yield from written_credentials(text, low)
        yield from mail_pairs(text)
        yield from warned_values(text, low)
    yield from pin_codes(text, low)
    yield from assignments(text, low)
    if len(text) >= 16:
        # (last: where a label names the value too, the label's finding names its kind)
        yield from sentence_passwords(text)


def _mapped(view: View, found: Iterator[tuple[int, SecretFinding]]) -> Iterator[tuple[int, SecretFinding]]:
    for prio, f in found:
        start, end = view.span(f.start, f.end)
        yield prio, SecretFinding(f.kind, start, end)


def _candidates(text: str, depth: int, budget: list[int]) -> list[tuple[int, SecretFinding]]:
    """Every (priority, finding) in ``text`` and in its normalised, joined and decoded forms,
    with spans in ``text``; overlaps are resolved by the caller."""
    view = normalise(text)
    norm = view.text
    low = _ascii_lower(norm)
    found = list(_rule_findings(norm, low))
    found.extend((_AFTER_RULES, f) for f in url_passwords(norm))
    found.extend((_AFTER_RULES, f) for f in schemeless_passwords(norm))
    # (a shape's span inside a crypt-format hash is the hash's salt or digest: secret_values.in_crypt_hash)
    found.extend((_AFTER_RULES + 1, SecretFinding(*span)) for span in _by_shape(norm, low) if not in_crypt_hash(norm, span[1]))
    if '\\"' in norm or "\\'" in norm:
        # (read again only on the lines that quote a member so: an escaped string keeps to its line)
        for start, end in lines_holding(norm, ('\\"', "\\'")):
            if _ESCAPED_MEMBER.search(norm, start, end):
                found.extend((_AFTER_RULES + 1, SecretFinding(f.kind, start + f.start, start + f.end))
                             for f in _escaped_quotes(norm[start:end]))
    out = list(_mapped(view, iter(found)))
    # A wrapped token is judged by the provider rules only: assignments and URLs are line-based,
    # and prose joined across lines would read as values.
    joined = join_wrapped(norm)
    if joined:
        joined.parent = view
        out.extend(_mapped(joined, _rule_findings(joined.text, _ascii_lower(joined.text))))
    if depth == 0:
        out.extend(_disguised(norm, view, budget))
    if depth < _MAX_DEPTH:
        source = joined or view
        for start, end, decoded, encoding in encoded_runs(source.text):
            if len(decoded) > budget[0]:
                break
            budget[0] -= len(decoded)
            inner = _resolve(_candidates(decoded, depth + 1, budget))
            if not inner and decoded[:1] == "{" and source.text[end:end + 1] != "." and source.text[start - 1:start] != ".":
                inner = _json_secrets(decoded)
            if not inner and ":" in decoded:
                inner = _user_pass(decoded, source.text, start, end)
            if not inner:
                inner = _decoded_value(decoded, source.text, start, end)
            if inner:
                span = source.span(start, end)
                out.append((_AFTER_RULES + 2, SecretFinding(f"{encoding}-encoded {inner[0].kind}", *span)))
    return out


_ESCAPED_QUOTE = lazy(r"\\(?=[\"'])")
# a member or an argument quoted with escaped quotes: the name's closing quote, then a sign or a comma
_ESCAPED_MEMBER = lazy(r"\\[\"'][ \t]{0,4}[:=,]")


def _escaped_quotes(norm: str) -> Iterator[SecretFinding]:
    """Findings in ``norm`` with its escaped quotes read as quotes: JSON or code quoted inside a
    string (``"{\\"password\\": \\"X\\"}"``, a log's repr of a request body), spans in ``norm``."""
    cut = [m.start() for m in _ESCAPED_QUOTE.finditer(norm)]  # the backslashes dropped
    unescaped = _ESCAPED_QUOTE.sub("", norm)
    # (the i-th dropped backslash sat at cut[i] - i in the unescaped text's offsets)
    at = [c - i for i, c in enumerate(cut)]

    def orig(pos: int) -> int:
        return pos + bisect.bisect_right(at, pos)

    for kind, start, end in _by_shape(unescaped, _ascii_lower(unescaped)):
        if end > start and not in_crypt_hash(unescaped, start):
            yield SecretFinding(kind, orig(start), orig(end - 1) + 1)


def _disguised(norm: str, view: View, budget: list[int]) -> Iterator[tuple[int, SecretFinding]]:
    """Findings in the text's disguises undone (:mod:`vault_mem.model.secret_text`), with spans
    in the root text: every rule reads a value spelled out, given as character codes, as bytes
    between dots under a key's name or built from literals defined around it; the provider formats
    read a list of strings joined and the long words reversed; the label rules read rot13."""
    if len(norm) < 16:
        return  # (shorter than any disguise: most keys, tags and field values stop here)
    edits = sorted(spelled_out(norm) + char_code_runs(norm) + named_bytes(norm) + composed_values(norm))
    if edits:
        sub, placed = substituted(norm, edits)
        sub.parent = view
        for prio, f in _candidates(sub.text, 1, budget):
            if any(f.start < end and f.end > start for start, end in placed):
                yield _AFTER_RULES + 2, SecretFinding(f.kind, *sub.span(f.start, f.end))
        for start, end, replacement in edits:
            word = replacement.strip('"')
            if replacement[:1] == '"' and norm[start:end].count(",") >= 7 and (random_token(word, min_len=12) or unguessable(word)):
                # (a random string written as character codes: nothing but hiding it makes anyone write one so)
                yield _AFTER_RULES + 2, SecretFinding("secret in character codes", *view.span(start, end))
    lists = joined_lists(norm)
    if lists:
        sub, placed = substituted(norm, lists)
        sub.parent = view
        for _, f in _rule_findings(sub.text, _ascii_lower(sub.text)):
            if any(f.start < end and f.end > start for start, end in placed):
                yield _AFTER_RULES + 2, SecretFinding(f"{f.kind} cut into a list", *sub.span(f.start, f.end))
    backwards = reversed_words(norm)
    if backwards:
        backwards.parent = view
        for _, f in _rule_findings(backwards.text, _ascii_lower(backwards.text)):
            yield _AFTER_RULES + 2, SecretFinding(f"{f.kind} written backwards", *backwards.span(f.start, f.end))
    rotated = rot13(norm)
    if rotated:
        rotated.parent = view
        for kind, start, end in assignments(rotated.text, _ascii_lower(rotated.text)):
            yield _AFTER_RULES + 2, SecretFinding(f"{kind} in rot13", *rotated.span(start, end))


# The members of a JSON object that name an id, a digest or a public part, not a secret
_JSON_PUBLIC_MEMBER = lazy(r"(?i:(?:id|uuid|guid|hash|sha|md5|digest|etag|integrity|checksum|nonce|iv|salt|pub|public|sig"
                         r"|signature|thumbprint|fingerprint|kid|x5t)(?:[_-]?[a-z0-9]{0,12})?|n|e|x|y)")


# `user:password` in base64 (a Basic credential's value) where its line says it is decoded or used
# as one ("echo X | base64 -d  # creds", `atob("X")` for the login): the pair alone, no label in it
_USER_PASS = lazy(r"[\w.@+-]{1,64}:(?P<pw>[^\s:]{6,200})")
_DECODE_CUE = lazy(r"(?i:base64[ \t]{1,4}(?:-d|-D|--decode)|b64decode|atob|from_?base64|frombase64string|cred|auth|login|passw)")


def _user_pass(decoded: str, text: str, start: int, end: int) -> list[SecretFinding]:
    """``user:password`` decoded from a run whose line tells it is decoded or used as credentials,
    with a password no word or name could be (:func:`unguessable`)."""
    m = _USER_PASS.fullmatch(decoded)
    if m is None or not unguessable(m.group("pw")) or looks_fake(m.group("pw")):
        return []
    line = text[text.rfind("\n", 0, start) + 1:(text.find("\n", end) + 1 or len(text) + 1) - 1]
    return [SecretFinding("user and password", 0, len(decoded))] if _DECODE_CUE.search(line[:400]) else []


# A value decoded on a line that decodes it and names what it is (`echo X | base64 -d  # the DB
# password`, `atob("X") // api token`, `b64decode("X")  # signing secret`): the label after the
# value, in a comment, names the decoded text, which is judged as a value under that label
_DECODE_CALL = lazy(r"(?i:base64[ \t]{1,4}(?:-d|-D|--decode)|b64decode|atob|from_?base64|frombase64string|decodebase64)")
_ONE_VALUE = lazy(r"[^\s]{6,200}")


def _decoded_value(decoded: str, text: str, start: int, end: int) -> list[SecretFinding]:
    """One value decoded from a run whose line decodes it (:data:`_DECODE_CALL`) and names a
    password, secret, token or key: what the label's judge takes for that credential."""
    if _ONE_VALUE.fullmatch(decoded) is None:
        return []
    line = text[text.rfind("\n", 0, start) + 1:(text.find("\n", end) + 1 or len(text) + 1) - 1][:400]
    if _DECODE_CALL.search(line) is None:
        return []
    for kw in label_keywords(line.lower()):
        cls = key_class(kw.group())
        if cls in ("password", "secret", "key"):
            kind = judge("password" if cls == "password" else "secret", ":", decoded, quoted=False, code=False, ends=True)
            if kind:
                return [SecretFinding(kind, 0, len(decoded))]
    return []


def _json_secrets(decoded: str) -> list[SecretFinding]:
    """A JSON object decoded from base64 whose member holds a random value of 32 characters or
    more (a tunnel's or a registry's token is the base64 of ``{"a": ..., "t": ..., "s": <secret>}``):
    the object is the token. Members named for an id, a digest or a public part pass; a JWT's
    parts (dotted) are not read here."""
    try:
        obj = json.loads(decoded)
    except ValueError:
        return []
    if not isinstance(obj, dict) or len(obj) > 16:
        return []
    for name, value in obj.items():
        if isinstance(value, str) and len(value) >= 32 and high_entropy(value) and not _JSON_PUBLIC_MEMBER.fullmatch(name) \
                and not UUID.fullmatch(value) and not is_placeholder(value, quoted=True) and not looks_fake(value):
            return [SecretFinding("token object", 0, len(decoded))]
    return []


def _resolve(candidates: list[tuple[int, SecretFinding]]) -> list[SecretFinding]:
    """The highest-priority finding wherever spans overlap, in order of position. ``taken`` stays
    sorted and disjoint, so checking the two neighbours is enough (no quadratic pass)."""
    taken: list[SecretFinding] = []
    starts: list[int] = []
    for _, f in sorted(candidates, key=lambda pf: (pf[0], pf[1].start)):
        i = bisect.bisect_right(starts, f.start)
        if (i and taken[i - 1].end > f.start) or (i < len(taken) and taken[i].start < f.end):
            continue
        taken.insert(i, f)
        starts.insert(i, f.start)
    return taken


def find_secrets(text: str) -> list[SecretFinding]:
    """Every suspected credential in ``text``, in order, without overlaps; spans are in ``text``.

    The text is read as written and in its disguised forms (:mod:`vault_mem.model.secret_text`):
    normalised (NFKC, zero-width characters dropped, homoglyphs folded), with wrapped tokens
    re-joined, and with base64 and URL-encoded runs decoded and read again. Where two findings
    overlap, the more specific names the kind (a GitHub token assigned to ``token=`` is a
    "GitHub token"; a direct match beats a decoded one).
    """
    if not text:
        return []
    if len(text) > _REMEMBERED_CHARS:
        return _resolve(_candidates(text, 0, [_DECODE_BUDGET]))
    return list(_remembered(text))


#: the longest text whose findings are kept (:func:`_remembered`): a memory's fields and a
#: typical body; a longer one is scanned each time it is asked about
_REMEMBERED_CHARS = 16 * 1024


@functools.lru_cache(maxsize=1024)  # at most 16 MB of texts held
def _remembered(text: str) -> tuple[SecretFinding, ...]:
    """:func:`find_secrets` of ``text``, kept: one command asks about the same texts again and
    again (the write gate reads a memory's fields, the commit's check the file, the sidecar's
    reconcile the file again, each field of it once per reader), and the scan is a pure function
    of the text (its findings are frozen). In tests/test_index.py and tests/test_peer_memories.py
    72% of the calls were for a text scanned already (24,461 calls, 6,827 texts)."""
    return tuple(_resolve(_candidates(text, 0, [_DECODE_BUDGET])))


_SLUG_RUN = lazy(r"(?<![A-Za-z0-9])[A-Za-z0-9]{32,200}(?![A-Za-z0-9])")
_SLUG_TOKEN = lazy(r"[A-Za-z]{0,40}[0-9][A-Za-z0-9]{0,40}[A-Za-z]|[A-Za-z][0-9]")  # letters and digits side by side


def slug_secrets(key: str) -> list[SecretFinding]:
    """Provider tokens in a memory's key read as a slug: words joined by ``-``, ``_`` and ``/``,
    which a token's own look-behind takes for part of a longer name (``notes/gitlab-glpat-<token>``).
    Each part from a separator on is read by the provider formats (spans in ``key``)."""
    if not _SLUG_TOKEN.search(key):
        return []  # (a slug of words: every token holds a run of letters and digits mixed)
    cuts = [i + 1 for i, c in enumerate(key) if c in "-_/"][:64]
    if not cuts:
        return []
    pieces = [key[i:] for i in cuts]
    text = "\n".join(pieces)
    starts = list(itertools.accumulate([0] + [len(p) + 1 for p in pieces[:-1]]))
    out = []
    for _, f in _rule_findings(text, _ascii_lower(text)):
        i = bisect.bisect_right(starts, f.start) - 1
        out.append(SecretFinding(f.kind, cuts[i] + f.start - starts[i], cuts[i] + f.end - starts[i]))
    for m in _SLUG_RUN.finditer(key):
        # a random run of both cases and digits, 32 long or more: no name is written so (a hash is
        # hex of one case, an id a UUID); the credential itself, put in the key to pass the gate
        run = m.group()
        if random_token(run, min_len=32) and run != run.lower() and run != run.upper() and not looks_fake(run):
            out.append(SecretFinding("random token", m.start(), m.end()))
    return _resolve([(0, f) for f in out])


_SEAM = 240  # a credential split between two fields sits where they meet (half a 24-word phrase: ~100)


def seam_secrets(first: str, second: str) -> list[SecretFinding]:
    """Credentials that run from the end of ``first`` into the start of ``second`` (half a seed
    phrase in a memory's description, half in its body; a label in one and its value in the
    other): the seed-phrase and label detectors over the two joined, findings across the seam
    only. Each field alone is read by :func:`find_secrets`; tokens and key blocks are not read
    again, since one cut in two is two fields each judged whole."""
    head, tail = first[-_SEAM // 2:].split(), second[:_SEAM].split()
    if not head or not tail:
        return []
    view = normalise(f"{first[-_SEAM // 2:]}\n{second[:_SEAM]}")
    seam = len(first[-_SEAM // 2:])
    out = []
    text = view.text
    # a phrase across the seam has list words on both sides of it (most fields stop here)
    phrases = seed_phrases(text) if seed_word(head[-1]) and seed_word(tail[0]) else iter(())
    for kind, start, end in itertools.chain(phrases, assignments(text, _ascii_lower(text))):
        start, end = view.span(start, end)
        if start < seam < end:
            out.append(SecretFinding(kind, start, end))
    return out


def scattered_phrase(fields: list[str]) -> bool:
    """A seed phrase cut into fields of one memory (six words in the body, six in a frontmatter
    field): the fields made only of list words, three or more each, read together in order as
    :func:`seed_phrases` reads one text. A field that is anything else is not a piece."""
    # (a piece is 3 to 21 words of eight letters at most: a longer field is no piece, and is not split)
    # (a piece may follow its own label on its field's line: "words 1-6: <six words>", "rest: ...")
    fields = [f.split(":", 1)[1] if 0 < f.find(":") <= 40 and "\n" not in f[:f.find(":")] else f for f in fields]
    pieces = [f.strip() for f in fields if len(f) <= 220 and 3 <= len(f.split()) and all(seed_word(w) for w in f.split())]
    if len(pieces) < 2:
        return False
    return any(True for _ in seed_phrases(" ".join(pieces)))
